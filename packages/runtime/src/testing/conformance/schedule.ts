/**
 * Schedules of perturbations: what may go wrong between the user's actions, as data fast-check
 * generates and shrinks, and as text a failure report shows. fast-check (an optional peer
 * dependency) is given by the caller, so importing the test kit does not need it.
 */
import type FastCheck from 'fast-check';
import type { Verb } from '../faults.js';
import type { InjectedAnswer, StaleEnd } from './controller-process.js';

/** One thing that goes wrong for the controller process. */
export type Perturbation =
  /** The process dies as its `afterWrites`th write from now is committed; it restarts a second later. */
  | { readonly kind: 'crash'; readonly afterWrites: number }
  /**
   * As the process's `afterWrites`th write from now is committed (now, for 0), its cache starts
   * serving the snapshot of that moment, for `forMs`; then the held events are delivered, merged
   * or lost (and the cache relists).
   */
  | { readonly kind: 'stale'; readonly afterWrites: number; readonly forMs: number; readonly end: StaleEnd }
  /** The `nth` call of `verb` from now gets `answer` instead of the server's. */
  | { readonly kind: 'answer'; readonly verb: Verb; readonly nth: number; readonly answer: InjectedAnswer }
  /** The virtual clock jumps `ms` forward (across requeues, backoffs and deadlines). */
  | { readonly kind: 'jump'; readonly ms: number };

/**
 * A schedule: `slots[i]` happens before the user's action `i`; the last slot after the last action.
 * A slot's perturbations start together, then the controller runs for the scenario's step.
 */
export interface Schedule {
  readonly slots: ReadonlyArray<readonly Perturbation[]>;
}

const VERBS: Verb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const ANSWERS: InjectedAnswer[] = [409, 410, 429, 500, 'timeout'];

type FC = typeof FastCheck;

/** Perturbations, simplest first (fast-check shrinks towards the first of each choice). */
export function perturbationArbitrary(fc: FC): FastCheck.Arbitrary<Perturbation> {
  return fc.oneof(
    fc.record({ kind: fc.constant('crash' as const), afterWrites: fc.integer({ min: 1, max: 4 }) }),
    fc.record({
      kind: fc.constant('stale' as const),
      afterWrites: fc.integer({ min: 0, max: 4 }),
      forMs: fc.integer({ min: 100, max: 20_000 }),
      end: fc.constantFrom<StaleEnd>('deliver', 'merge', 'lose'),
    }),
    fc.record({
      kind: fc.constant('answer' as const),
      verb: fc.constantFrom(...VERBS),
      nth: fc.integer({ min: 1, max: 4 }),
      answer: fc.constantFrom(...ANSWERS),
    }),
    fc.record({ kind: fc.constant('jump' as const), ms: fc.integer({ min: 1_000, max: 30 * 60_000 }) }),
  );
}

/** Schedules for a scenario of `actions` user actions, at most `perSlot` perturbations per slot. */
export function scheduleArbitrary(fc: FC, actions: number, perSlot = 3): FastCheck.Arbitrary<Schedule> {
  const slots = fc.array(fc.array(perturbationArbitrary(fc), { maxLength: perSlot }), {
    minLength: actions + 1,
    maxLength: actions + 1,
  });
  return slots.map(
    (s) => ({ slots: s }),
    (v) => {
      if (typeof v !== 'object' || v === null || !Array.isArray((v as Schedule).slots))
        throw new Error('not a Schedule');
      return (v as Schedule).slots as Perturbation[][];
    },
  );
}

/** One perturbation in words. */
export function describePerturbation(p: Perturbation): string {
  switch (p.kind) {
    case 'crash':
      return `crash as write ${p.afterWrites} from now is committed`;
    case 'stale':
      return `${p.afterWrites > 0 ? `as write ${p.afterWrites} from now is committed, ` : ''}stale cache for ${p.forMs} ms, then its events ${p.end === 'deliver' ? 'delivered' : p.end === 'merge' ? 'merged' : 'lost (relist)'}`;
    case 'answer':
      return `${p.verb} call ${p.nth} from now answered ${p.answer}`;
    case 'jump':
      return `clock jumps ${p.ms} ms`;
  }
}

/** A schedule in words, one line per perturbation, placed among the named actions. */
export function describeSchedule(schedule: Schedule, actionNames: readonly string[]): string {
  const lines: string[] = [];
  schedule.slots.forEach((slot, i) => {
    const where = i < actionNames.length ? `before "${actionNames[i]}"` : 'after the last action';
    for (const p of slot) lines.push(`  ${where}: ${describePerturbation(p)}`);
  });
  return lines.length > 0 ? lines.join('\n') : '  (no perturbation)';
}
