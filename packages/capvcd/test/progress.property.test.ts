/**
 * The conditions a machine being made leaves as they stand (`decide/progress.ts`), checked against
 * writing every change, over any run of steps, waits, polls, failures and the end: what is held
 * back is only ever a vApp wait's or a poll's wording while the making is under way; every other
 * change (a failure, the first wait after one, provisioned, a deletion) is written as before; and
 * never more writes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ConditionState,
  pollKeepsCondition,
  UNDER_WAY,
  waitKeepsConditions,
} from '../src/decide/progress.js';

interface Said extends ConditionState {
  message: string;
}

/** What happens to a machine in one reconcile, as VMProvisioned hears of it. */
type Event =
  | { kind: 'step'; reason: string } // a step started or next (`next: <kind>`), a wait of another reason, a failure
  | { kind: 'vappWait'; message: string } // VAppBusy: a sibling's task, the recompose queue
  | { kind: 'poll' } // the recorded task still runs
  | { kind: 'provisioned' };

const STEPS = ['CreateVApp', 'CreateVM', 'ConfigureVM', 'PowerOn', 'WaitForIP'];
const OTHER = [
  'WaitingForBootstrapData',
  'VCDError',
  'TaskFailed',
  'VMBusy',
  'TaskEnded',
  'CredentialsNotFound',
];

const event: fc.Arbitrary<Event> = fc.oneof(
  fc.record({ kind: fc.constant('step' as const), reason: fc.constantFrom(...STEPS, ...OTHER) }),
  fc.record({
    kind: fc.constant('vappWait' as const),
    message: fc.constantFrom('a', 'b (2 waiting)', 'c (5 waiting)'),
  }),
  fc.record({ kind: fc.constant('poll' as const) }),
  fc.record({ kind: fc.constant('provisioned' as const) }),
);

/** The condition after `e`, writing every change (`keep` false) or as the decisions say. */
function next(current: Said | undefined, e: Event, deleting: boolean, keep: boolean): Said | undefined {
  switch (e.kind) {
    case 'step':
      return { status: 'False', reason: deleting ? 'Deleting' : e.reason, message: `next: ${e.reason}` };
    case 'vappWait':
      if (keep && waitKeepsConditions(current, 'VAppBusy', deleting)) return current;
      return { status: 'False', reason: 'VAppBusy', message: e.message };
    case 'poll': {
      // The task polled is the one the last step started (or a batch's CreateVM).
      const operation = current && STEPS.includes(current.reason) ? current.reason : 'CreateVM';
      if (keep && pollKeepsCondition(current, operation)) return current;
      return { status: 'False', reason: operation, message: 'waiting for the VCD task' };
    }
    case 'provisioned':
      return { status: 'True', reason: 'Provisioned', message: 'on' };
  }
}

const same = (a: Said | undefined, b: Said | undefined) => JSON.stringify(a) === JSON.stringify(b);

describe('conditions left as they stand while a machine is made', () => {
  it('differ from writing every change only in a wait or poll, while under way; never more writes', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), fc.boolean(), (events, deleting) => {
        let always: Said | undefined;
        let kept: Said | undefined;
        let writesAlways = 0;
        let writesKept = 0;
        for (const e of events) {
          const a = next(always, e, deleting, false);
          const k = next(kept, e, deleting, true);
          if (!same(a, always)) writesAlways++;
          if (!same(k, kept)) writesKept++;
          always = a;
          kept = k;
          if (!same(always, kept)) {
            expect(['vappWait', 'poll']).toContain(e.kind);
            expect(deleting && e.kind === 'vappWait').toBe(false);
            expect(kept?.status).toBe('False');
            expect(UNDER_WAY.has(kept?.reason ?? '')).toBe(true);
          }
        }
        expect(writesKept).toBeLessThanOrEqual(writesAlways);
      }),
    );
  });

  it('write a failure, the first wait after one, and anything True', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OTHER, 'Provisioned', 'Deleting'),
        fc.constantFrom('True', 'False'),
        fc.boolean(),
        (reason, status, deleting) => {
          expect(waitKeepsConditions({ status, reason }, 'VAppBusy', deleting)).toBe(false);
        },
      ),
    );
    for (const reason of UNDER_WAY) {
      expect(waitKeepsConditions({ status: 'True', reason }, 'VAppBusy', false)).toBe(false);
      expect(waitKeepsConditions({ status: 'False', reason }, 'VAppBusy', true)).toBe(false);
      expect(waitKeepsConditions({ status: 'False', reason }, 'VMBusy', false)).toBe(false);
      expect(waitKeepsConditions({ status: 'False', reason }, 'VAppBusy', false)).toBe(true);
    }
    expect(waitKeepsConditions(undefined, 'VAppBusy', false)).toBe(false);
    expect(pollKeepsCondition({ status: 'False', reason: 'PowerOn' }, 'PowerOn')).toBe(true);
    expect(pollKeepsCondition({ status: 'False', reason: 'VAppBusy' }, 'CreateVM')).toBe(false);
    expect(pollKeepsCondition({ status: 'True', reason: 'PowerOn' }, 'PowerOn')).toBe(false);
  });
});
