import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/testing/manual-clock.js';
import { type WorkPriority, WorkQueue } from '../../src/workqueue/index.js';

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

const KEYS = ['a', 'b', 'c', 'd', 'e'] as const;
const WORKERS = 4;

type Command =
  | { op: 'add'; key: string; priority: WorkPriority }
  | { op: 'get'; worker: number }
  | { op: 'done'; worker: number }
  | { op: 'tick'; ms: number };

const priority = fc.constantFrom<WorkPriority>('normal', 'low');

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), key: fc.constantFrom(...KEYS), priority }),
  fc.record({ op: fc.constant('get' as const), worker: fc.nat(WORKERS - 1) }),
  fc.record({ op: fc.constant('done' as const), worker: fc.nat(WORKERS - 1) }),
  fc.record({ op: fc.constant('tick' as const), ms: fc.nat(30) }),
);

/**
 * Simulated concurrent workers against one queue. A worker is idle, waiting in `get`, or holding
 * a key. Every event is stamped from one counter, so "after" means after in the interleaving.
 */
class Simulation {
  readonly clock = new ManualClock(0);
  readonly q: WorkQueue;
  readonly holding: (string | undefined)[] = Array(WORKERS).fill(undefined);
  readonly waiting: boolean[] = Array(WORKERS).fill(false);
  private stamp = 0;
  readonly lastAdd = new Map<string, number>();
  readonly lastHandOut = new Map<string, number>();
  readonly adds = new Map<string, number>();
  readonly handOuts = new Map<string, number>();
  readonly violations: string[] = [];

  constructor(lowPriorityAgingMs = 5_000) {
    this.q = new WorkQueue({ clock: this.clock, lowPriorityAgingMs });
  }

  add(key: string, priority: WorkPriority = 'normal'): void {
    this.lastAdd.set(key, ++this.stamp);
    this.adds.set(key, (this.adds.get(key) ?? 0) + 1);
    this.q.add(key, undefined, priority);
  }

  get(worker: number): void {
    if (this.holding[worker] !== undefined || this.waiting[worker]) return;
    this.waiting[worker] = true;
    void this.q.get().then((r) => {
      this.waiting[worker] = false;
      if (r.shutdown) return;
      // The property under test: no other worker holds this key right now.
      if (this.holding.includes(r.key)) this.violations.push(`${r.key} handed to two workers`);
      this.holding[worker] = r.key;
      this.lastHandOut.set(r.key, ++this.stamp);
      this.handOuts.set(r.key, (this.handOuts.get(r.key) ?? 0) + 1);
    });
  }

  done(worker: number): void {
    const key = this.holding[worker];
    if (key === undefined) return;
    this.holding[worker] = undefined;
    this.q.done(key);
  }

  /** Lets every worker run until nothing is queued or held. */
  async settle(): Promise<void> {
    for (let round = 0; round < 1000; round++) {
      for (let w = 0; w < WORKERS; w++) {
        this.done(w);
        this.get(w);
      }
      await flush();
      if (this.q.len() === 0 && this.holding.every((k) => k === undefined)) return;
    }
    throw new Error('queue did not settle');
  }
}

describe('WorkQueue properties', () => {
  it('never hands one key to two workers, and processes every key after its last add (any priorities, any aging)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 60 }), fc.nat(50), async (commands, agingMs) => {
        const sim = new Simulation(agingMs);
        for (const c of commands) {
          if (c.op === 'add') sim.add(c.key, c.priority);
          else if (c.op === 'get') sim.get(c.worker);
          else if (c.op === 'tick') sim.clock.advance(c.ms);
          else sim.done(c.worker);
          await flush();
          expect(sim.violations).toEqual([]);
        }
        await sim.settle();
        expect(sim.violations).toEqual([]);
        for (const [key, added] of sim.lastAdd) {
          expect(sim.lastHandOut.get(key) ?? 0).toBeGreaterThan(added);
        }
        // Each hand-out is paid for by at least one add: duplicates never multiply work.
        for (const [key, n] of sim.handOuts) expect(n).toBeLessThanOrEqual(sim.adds.get(key) ?? 0);
        sim.q.shutDown();
        await flush();
        expect(sim.waiting.every((w) => !w)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('collapses duplicates: each pending key is handed out once, in first-add order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 40 }), async (adds) => {
        const q = new WorkQueue();
        for (const k of adds) q.add(k);
        const firstOrder = [...new Set(adds)];
        expect(q.len()).toBe(firstOrder.length);
        const got: string[] = [];
        while (q.len() > 0) {
          const r = await q.get();
          if (!r.shutdown) got.push(r.key);
        }
        expect(got).toEqual(firstOrder);
      }),
      { numRuns: 1000 },
    );
  });

  it('shutDownWithDrain resolves exactly when the last in-flight key is done', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .uniqueArray(fc.constantFrom(...KEYS), { minLength: 1 })
          .chain((held) =>
            fc.tuple(fc.constant(held), fc.shuffledSubarray(held, { minLength: held.length })),
          ),
        fc.array(fc.constantFrom(...KEYS), { maxLength: 5 }),
        async ([held, doneOrder], extra) => {
          const q = new WorkQueue();
          for (const k of held) q.add(k);
          for (const _ of held) await q.get();
          for (const k of extra) q.add(k); // dirty keys still finish their in-flight run
          let drained = false;
          void q.shutDownWithDrain().then(() => {
            drained = true;
          });
          for (const k of doneOrder) {
            await flush();
            expect(drained).toBe(false);
            q.done(k);
          }
          await flush();
          expect(drained).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('hands out every normal key before any low one while nothing has aged (model: two lists, promotion)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.constantFrom(...KEYS), priority }), { minLength: 1, maxLength: 40 }),
        async (adds) => {
          const q = new WorkQueue({ clock: new ManualClock(0) });
          const normal: string[] = [];
          const low: string[] = [];
          for (const { key, priority: p } of adds) {
            q.add(key, undefined, p);
            if (normal.includes(key)) continue;
            if (low.includes(key)) {
              if (p === 'normal') {
                low.splice(low.indexOf(key), 1);
                normal.push(key);
              }
              continue;
            }
            (p === 'normal' ? normal : low).push(key);
          }
          expect(q.len()).toBe(normal.length + low.length);
          const got: string[] = [];
          while (q.len() > 0) {
            const r = await q.get();
            if (!r.shutdown) got.push(r.key);
          }
          expect(got).toEqual([...normal, ...low]);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('never starves low keys: once aged, they get every other hand-out under a stream of normal adds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 3 }),
        async (lowCount, agingMs, normalPerStep) => {
          const clock = new ManualClock(0);
          const q = new WorkQueue({ clock, lowPriorityAgingMs: agingMs });
          for (let i = 0; i < lowCount; i++) q.add(`low-${i}`, undefined, 'low');
          clock.advance(agingMs);
          let next = 0;
          const handedOut: string[] = [];
          for (let step = 0; step < 2 * lowCount; step++) {
            for (let j = 0; j < normalPerStep; j++) q.add(`edit-${next++}`);
            const r = await q.get();
            if (r.shutdown) throw new Error('unexpected shutdown');
            handedOut.push(r.key);
            q.done(r.key);
          }
          const lows = handedOut.filter((k) => k.startsWith('low-'));
          // Every low key is out within 2n hand-outs, in order, and edits got the other half.
          expect(lows).toEqual(Array.from({ length: lowCount }, (_, i) => `low-${i}`));
          expect(handedOut.length - lows.length).toBe(lowCount);
        },
      ),
      { numRuns: 500 },
    );
  });
});
