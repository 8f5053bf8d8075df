import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VAppTurns } from '../src/machine/vapp-turns.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('VAppTurns', () => {
  it('property: turns on one vApp never overlap and run in arrival order; other vApps run beside', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ vapp: fc.constantFrom('a', 'b', 'c'), ticks: fc.nat(3), fails: fc.boolean() }), {
          maxLength: 25,
        }),
        async (jobs) => {
          const turns = new VAppTurns();
          const running = new Map<string, number>();
          const order = new Map<string, number[]>();
          let overlapped = false;
          let maxAcross = 0;
          const runs = jobs.map((job, i) =>
            turns
              .take(job.vapp, async () => {
                const now = (running.get(job.vapp) ?? 0) + 1;
                running.set(job.vapp, now);
                if (now > 1) overlapped = true;
                maxAcross = Math.max(
                  maxAcross,
                  [...running.values()].reduce((a, b) => a + b, 0),
                );
                order.set(job.vapp, [...(order.get(job.vapp) ?? []), i]);
                for (let t = 0; t < job.ticks; t++) await tick();
                running.set(job.vapp, (running.get(job.vapp) ?? 1) - 1);
                if (job.fails) throw new Error(`job ${i}`);
                return i;
              })
              .then(
                (v) => ({ ok: v }),
                (e: Error) => ({ err: e.message }),
              ),
          );
          const results = await Promise.all(runs);
          expect(overlapped).toBe(false);
          for (const [vapp, seen] of order) {
            const arrived = jobs.flatMap((j, i) => (j.vapp === vapp ? [i] : []));
            expect(seen).toEqual(arrived);
          }
          for (const [i, r] of results.entries())
            expect(r).toEqual(jobs[i]?.fails ? { err: `job ${i}` } : { ok: i });
          if (new Set(jobs.map((j) => j.vapp)).size > 1 && jobs.every((j) => j.ticks > 0)) {
            expect(maxAcross).toBeGreaterThan(1);
          }
          expect(turns.size).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});
