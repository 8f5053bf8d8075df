import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Condition, keepTransitionTimes } from '../../src/helpers/index.js';

const NOW = new Date('2030-05-06T07:08:09Z');
const stamp = '2030-05-06T07:08:09Z';
const condition = fc.record({
  type: fc.constantFrom('Ready', 'Paused', 'Degraded'),
  status: fc.constantFrom('True', 'False', 'Unknown'),
  reason: fc.constantFrom('A', 'B'),
  message: fc.string({ maxLength: 3 }),
  lastTransitionTime: fc.constantFrom('2029-01-01T00:00:00Z', '2029-06-01T00:00:00Z'),
}) as fc.Arbitrary<Condition>;
const conditions = fc.uniqueArray(condition, { selector: (c) => c.type, maxLength: 3 });

describe('keepTransitionTimes', () => {
  it('keeps a time exactly when the same type had the same status, else stamps now', () => {
    fc.assert(
      fc.property(conditions, conditions, (before, next) => {
        const out = keepTransitionTimes({ conditions: before }, { conditions: next, other: 1 }, NOW);
        expect(out.other).toBe(1);
        const stamped = out.conditions as Condition[];
        expect(stamped.map(({ lastTransitionTime: _t, ...c }) => c)).toEqual(
          next.map(({ lastTransitionTime: _t, ...c }) => c),
        );
        stamped.forEach((c, i) => {
          const previous = before.find((b) => b.type === c.type);
          const unchanged = previous !== undefined && previous.status === next[i]?.status;
          expect(c.lastTransitionTime).toBe(unchanged ? previous.lastTransitionTime : stamp);
        });
      }),
    );
  });

  it('is stable: stamping its own output again changes nothing', () => {
    fc.assert(
      fc.property(conditions, conditions, (before, next) => {
        const once = keepTransitionTimes({ conditions: before }, { conditions: next }, NOW);
        const later = new Date(NOW.getTime() + 3_600_000);
        expect(keepTransitionTimes(once, once, later)).toEqual(once);
      }),
    );
  });

  it('leaves a status without conditions as it is', () => {
    expect(keepTransitionTimes({ conditions: [] }, { phase: 'Up' }, NOW)).toEqual({ phase: 'Up' });
  });
});
