/**
 * Leader election over simulated timelines with latency, faults, lease outages and restarts, on
 * the in-memory FakeCluster with a manual clock: two electors never believe they lead at once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiError } from '../../../src/api/errors.js';
import { LeaderElector } from '../../../src/manager/leaderelection/leader-elector.js';
import { world } from './election-world.js';

describe('LeaderElector', () => {
  it('never lets two electors lead at once over random timelines (latency, faults, pauses, restarts)', async () => {
    type Action =
      | { kind: 'advance'; ms: number }
      | { kind: 'pause' | 'resume' | 'stop' | 'start'; who: number }
      | { kind: 'pauseLeader' | 'stopLeader' }
      | { kind: 'fail'; code: 409 | 500 | 503; count: number };
    const who = fc.integer({ min: 0, max: 2 });
    const action: fc.Arbitrary<Action> = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          kind: fc.constant('advance' as const),
          ms: fc.integer({ min: 1, max: 7_000 }),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({ kind: fc.constantFrom('pauseLeader' as const, 'stopLeader' as const) }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constantFrom('pause' as const, 'resume' as const, 'stop' as const, 'start' as const),
          who,
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('fail' as const),
          code: fc.constantFrom(409 as const, 500 as const, 503 as const),
          count: fc.integer({ min: 1, max: 6 }),
        }),
      },
    );

    const stats = { runs: 0, lost: 0, handovers: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { minLength: 10, maxLength: 60 }),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        async (actions, latencyMs, seed) => {
          const w = world({ latencyMs });
          let r = seed;
          const random = () => {
            r = (Math.imul(r, 1103515245) + 12345) >>> 0;
            return r / 2 ** 32;
          };
          const electors = ['e0', 'e1', 'e2'].map((who) => w.elector(who, { jitterFactor: 1.2, random }));
          const running = new Set<number>();
          const start = (i: number) => {
            if (running.has(i)) return;
            running.add(i);
            (electors[i] as LeaderElector).run().then(() => running.delete(i));
          };
          for (let i = 0; i < electors.length; i++) start(i);
          for (const a of actions) {
            switch (a.kind) {
              case 'advance':
                await w.run(a.ms, electors, 250);
                break;
              case 'pause':
                w.cut(electors[a.who]);
                break;
              case 'resume':
                w.restore(electors[a.who]);
                break;
              case 'stop':
                void electors[a.who]?.stop();
                break;
              case 'start':
                start(a.who);
                break;
              case 'pauseLeader':
                w.cut(electors.find((e) => e.isLeader()));
                break;
              case 'stopLeader':
                void electors.find((e) => e.isLeader())?.stop();
                break;
              case 'fail':
                w.cluster.failNext(
                  '*',
                  apiError(a.code, a.code === 409 ? 'Conflict' : 'InternalError', 'x'),
                  a.count,
                );
                break;
            }
          }
          // With everyone healthy again, someone leads within a lease duration plus retries.
          w.cluster.clearFaults();
          for (const e of electors) w.restore(e);
          for (let i = 0; i < electors.length; i++) start(i);
          await w.run(40_000, electors, 250);
          expect(electors.filter((e) => e.isLeader())).toHaveLength(1);
          w.assertNoOverlap();
          stats.runs++;
          stats.lost += w.intervals.filter((i) => i.lost).length;
          stats.handovers += w.intervals.length - 1;
          for (const e of electors) void e.stop();
          await w.clock.advanceAsync(5_000);
          w.assertNoOverlap();
        },
      ),
      { numRuns: 100 },
    );
    // The timelines did exercise losing and handing over leadership.
    expect(stats.lost).toBeGreaterThan(stats.runs / 5);
    expect(stats.handovers).toBeGreaterThan(stats.runs / 2);
  }, 60_000);
});
