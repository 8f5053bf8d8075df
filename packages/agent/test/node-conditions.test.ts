/** The agent's Node conditions as pure decisions: what is written, when, and what is kept. */
import {
  AGENT_CONDITION_TYPES,
  AGENT_QUARANTINED_ANNOTATION,
  AGENT_QUARANTINED_CONDITION,
  AGENT_SOURCE_ERROR_ANNOTATION,
  AGENT_SOURCE_ERROR_CONDITION,
} from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conditionUpdates, type PresentCondition, wantedConditions } from '../src/node-conditions.js';

const NOW = Date.parse('2026-12-06T12:00:00Z');
const EARLIER = '2026-12-01T00:00:00Z';

const annotationsArb = fc.record(
  {
    [AGENT_QUARANTINED_ANNOTATION]: fc.string({ maxLength: 20 }),
    [AGENT_SOURCE_ERROR_ANNOTATION]: fc.string({ maxLength: 20 }),
    other: fc.string({ maxLength: 5 }),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Record<string, string>>;

const presentArb: fc.Arbitrary<PresentCondition[]> = fc.uniqueArray(
  fc.record(
    {
      type: fc.constantFrom(...AGENT_CONDITION_TYPES, 'Ready'),
      status: fc.constantFrom('True', 'False', 'Unknown'),
      reason: fc.constantFrom('RebootLoop', 'QuarantineCleared', 'SourceCannotTell', 'SourceAnswers', 'X'),
      message: fc.string({ maxLength: 10 }),
      lastTransitionTime: fc.constant(EARLIER),
    },
    { requiredKeys: ['type'] },
  ),
  { selector: (c) => c.type },
);

/** The conditions after the updates are merged by type, as a strategic merge patch does. */
function merged(present: PresentCondition[], annotations: Record<string, string>): PresentCondition[] {
  const out = [...present];
  for (const u of conditionUpdates(present, annotations, NOW)) {
    const i = out.findIndex((c) => c.type === u.type);
    if (i >= 0) out[i] = u;
    else out.push(u);
  }
  return out;
}

describe('the agent’s Node conditions', () => {
  it('property: after the updates each condition says what the annotations say (or is absent while False)', () => {
    fc.assert(
      fc.property(presentArb, annotationsArb, (present, annotations) => {
        const after = merged(present, annotations);
        for (const wanted of wantedConditions(annotations)) {
          const c = after.find((x) => x.type === wanted.type);
          if (c === undefined) {
            expect(wanted.status).toBe('False');
            continue;
          }
          expect({ status: c.status, reason: c.reason, message: c.message }).toEqual({
            status: wanted.status,
            reason: wanted.reason,
            message: wanted.message,
          });
        }
        // Nobody else's condition is touched.
        expect(after.find((c) => c.type === 'Ready')).toEqual(present.find((c) => c.type === 'Ready'));
      }),
    );
  });

  it('property: a second pass writes nothing; the transition time moves only with the status', () => {
    fc.assert(
      fc.property(presentArb, annotationsArb, (present, annotations) => {
        const after = merged(present, annotations);
        expect(conditionUpdates(after, annotations, NOW + 60_000)).toEqual([]);
        for (const u of conditionUpdates(present, annotations, NOW)) {
          const before = present.find((c) => c.type === u.type);
          const kept = before?.status === u.status ? before.lastTransitionTime : undefined;
          expect(u.lastTransitionTime).toBe(kept ?? '2026-12-06T12:00:00Z');
          expect(u.lastHeartbeatTime).toBe('2026-12-06T12:00:00Z');
        }
      }),
    );
  });

  it('writes no False condition on a node that never had it', () => {
    expect(conditionUpdates(undefined, {}, NOW)).toEqual([]);
    expect(conditionUpdates([{ type: 'Ready', status: 'True' }], { other: 'x' }, NOW)).toEqual([]);
  });

  it('sets RebootQuarantined with the annotation’s text, and clears it once the annotation is gone', () => {
    const [set] = conditionUpdates(undefined, { [AGENT_QUARANTINED_ANNOTATION]: 'then: 3 cycles' }, NOW);
    expect(set).toMatchObject({ type: AGENT_QUARANTINED_CONDITION, status: 'True', reason: 'RebootLoop' });
    expect(set?.message).toContain('then: 3 cycles');
    const [cleared] = conditionUpdates(set ? [set] : [], {}, NOW + 1_000);
    expect(cleared).toMatchObject({
      type: AGENT_QUARANTINED_CONDITION,
      status: 'False',
      reason: 'QuarantineCleared',
    });
  });

  it('sets RebootSourceError with the error, and follows a changed message without a transition', () => {
    const error = { [AGENT_SOURCE_ERROR_ANNOTATION]: 'directory /host/run does not exist' };
    const [set] = conditionUpdates(undefined, error, NOW);
    expect(set).toMatchObject({
      type: AGENT_SOURCE_ERROR_CONDITION,
      status: 'True',
      message: 'directory /host/run does not exist',
    });
    const [moved] = conditionUpdates(
      set ? [set] : [],
      { [AGENT_SOURCE_ERROR_ANNOTATION]: 'EACCES' },
      NOW + 5_000,
    );
    expect(moved).toMatchObject({
      status: 'True',
      message: 'EACCES',
      lastTransitionTime: set?.lastTransitionTime,
    });
  });
});
