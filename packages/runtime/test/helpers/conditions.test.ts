import { describe, expect, it } from 'vitest';
import { getCondition, isConditionTrue, removeCondition, setCondition } from '../../src/helpers/index.js';

describe('conditions', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const t1 = new Date('2026-01-01T01:00:00Z');

  it('moves lastTransitionTime only when the status changes', () => {
    let conds = setCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'Waiting', message: 'a', observedGeneration: 1 },
      t0,
    );
    expect(getCondition(conds, 'Ready')?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    conds = setCondition(
      conds,
      { type: 'Ready', status: 'False', reason: 'StillWaiting', message: 'b', observedGeneration: 2 },
      t1,
    );
    expect(getCondition(conds, 'Ready')).toMatchObject({
      reason: 'StillWaiting',
      observedGeneration: 2,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    conds = setCondition(conds, { type: 'Ready', status: 'True', reason: 'Done', message: '' }, t1);
    expect(getCondition(conds, 'Ready')?.lastTransitionTime).toBe('2026-01-01T01:00:00Z');
    expect(isConditionTrue(conds, 'Ready')).toBe(true);
    expect(conds).toHaveLength(1);
  });

  it('sets, gets and removes without touching the input', () => {
    const a = setCondition([], { type: 'A', status: 'True', reason: 'R', message: '' }, t0);
    const ab = setCondition(a, { type: 'B', status: 'Unknown', reason: 'R', message: '' }, t0);
    expect(a).toHaveLength(1);
    expect(ab.map((c) => c.type)).toEqual(['A', 'B']);
    expect(removeCondition(ab, 'A').map((c) => c.type)).toEqual(['B']);
    expect(getCondition(ab, 'C')).toBeUndefined();
  });
});
