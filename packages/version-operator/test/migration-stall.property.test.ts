/**
 * The migration's stall clock, driven through random rounds: phases and waits that change or
 * stay, time that passes in uneven steps, a status whose start was garbled. It is stalled exactly
 * when one wait has lasted the timeout, it never changes what the migration does, and its report
 * stays the same while the stall lasts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MigrationPhase, MigrationStatus } from '../src/api/reboot-stack.js';
import { migrationStall, trackWait } from '../src/decide/migration-stall.js';

const TIMEOUT = 60_000;
const PHASES: MigrationPhase[] = [
  'Pausing',
  'StoppingCoordinator',
  'SwitchingCoordinator',
  'SwitchingAgents',
];

interface Round {
  phase: MigrationPhase;
  waiting: string | undefined;
  /** Time since the previous round. */
  dt: number;
}

const round = fc.record({
  phase: fc.constantFrom(...PHASES),
  waiting: fc.option(fc.constantFrom('agents: 3 of 4 updated', 'agents: 4 of 4 updated', 'groups: a'), {
    nil: undefined,
  }),
  dt: fc.integer({ min: 0, max: 40_000 }),
});

const START = Date.parse('2026-01-01T00:00:00.000Z');
const base = (phase: MigrationPhase): MigrationStatus => ({
  from: 'fluo',
  to: 'capstan',
  phase,
  pausedGroups: ['all'],
});

describe('the migration stall clock', () => {
  it('reports a stall exactly when one phase has waited on the same thing for the timeout', () => {
    fc.assert(
      fc.property(fc.array(round, { minLength: 1, maxLength: 40 }), (rounds) => {
        let current = base('Pausing');
        let now = START;
        // The model: when the wait seen now began (undefined while not waiting).
        let began: number | undefined;
        let last: Round | undefined;
        for (const r of rounds) {
          now += r.dt;
          const next = trackWait(current, { ...current, phase: r.phase }, r.waiting, new Date(now));
          if (r.waiting === undefined) began = undefined;
          else if (!last || last.phase !== r.phase || last.waiting !== r.waiting || began === undefined)
            began = now;
          last = r;
          const stall = migrationStall(next, new Date(now), TIMEOUT);
          const expected = began !== undefined && now - began >= TIMEOUT;
          expect(stall !== undefined).toBe(expected);
          if (stall) {
            expect(stall.reason).toBe('MigrationStalled');
            expect(stall.message).toContain(r.phase);
            expect(stall.message).toContain(r.waiting);
          }
          current = next as MigrationStatus;
        }
      }),
    );
  });

  it('changes nothing the migration does: phase, protocols and paused groups pass through', () => {
    fc.assert(
      fc.property(
        round,
        fc.constantFrom(...PHASES),
        fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }),
        (r, previousPhase, groups) => {
          const next: MigrationStatus = { ...base(r.phase), pausedGroups: groups };
          const tracked = trackWait(
            { ...base(previousPhase), waiting: 'x', waitingSince: new Date(START).toISOString() },
            next,
            r.waiting,
            new Date(START + r.dt),
          );
          const { waiting, waitingSince, ...rest } = tracked as MigrationStatus;
          expect(rest).toEqual(next);
          expect(waiting).toBe(r.waiting);
          expect(waitingSince === undefined).toBe(r.waiting === undefined);
          // A migration that is over stays over.
          expect(trackWait(next, undefined, r.waiting, new Date(START))).toBeUndefined();
        },
      ),
    );
  });

  it('a wait that keeps changing within the timeout never stalls, however long the migration runs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: TIMEOUT - 1 }), { minLength: 1, maxLength: 60 }),
        (gaps) => {
          let current = base('SwitchingAgents');
          let now = START;
          gaps.forEach((dt, i) => {
            now += dt;
            current = trackWait(
              current,
              current,
              `agents: ${i} of 99 updated`,
              new Date(now),
            ) as MigrationStatus;
            expect(migrationStall(current, new Date(now), TIMEOUT)).toBeUndefined();
          });
        },
      ),
    );
  });

  it('a garbled start restarts the clock instead of hiding a stall for ever', () => {
    fc.assert(
      fc.property(fc.constantFrom('', 'yesterday', '2026-13-45', undefined), (since) => {
        const previous = { ...base('SwitchingAgents'), waiting: 'w', waitingSince: since };
        const t1 = new Date(START);
        const tracked = trackWait(previous, base('SwitchingAgents'), 'w', t1) as MigrationStatus;
        expect(tracked.waitingSince).toBe(t1.toISOString());
        const later = new Date(START + TIMEOUT);
        const again = trackWait(tracked, base('SwitchingAgents'), 'w', later);
        expect(migrationStall(again, later, TIMEOUT)).toBeDefined();
      }),
    );
  });

  it('says the same thing from round to round while the stall lasts (the status is written once)', () => {
    let current = trackWait(
      base('SwitchingAgents'),
      base('SwitchingAgents'),
      'w',
      new Date(START),
    ) as MigrationStatus;
    const messages = new Set<string>();
    for (let t = TIMEOUT; t < TIMEOUT * 5; t += 7_000) {
      current = trackWait(current, current, 'w', new Date(START + t)) as MigrationStatus;
      messages.add(migrationStall(current, new Date(START + t), TIMEOUT)?.message ?? 'none');
    }
    expect([...messages]).toHaveLength(1);
    expect([...messages][0]).toMatch(
      /waited in SwitchingAgents since 2026-01-01T00:00:00.000Z \(longer than 1m\): w\./,
    );
  });
});
