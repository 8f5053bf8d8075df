/**
 * One bounded-parallel `evictPods` for every drainer (the agent and the coordinator's FleetLock
 * drain): each pod once, never more than the limit in flight, a hung eviction cut off by its time
 * limit, and a refused pod backed off on its own while the others go on.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import type { Client } from '../../src/client/index.js';
import {
  backoffDelay,
  EvictionBackoff,
  evictPods,
  forEachBounded,
  type PodDrainFacts,
} from '../../src/helpers/index.js';
import { flushMicrotasks, ManualClock } from '../../src/testing/index.js';

const pod = (name: string): PodDrainFacts => ({
  namespace: 'ns',
  name,
  uid: `uid-${name}`,
  daemonSet: false,
  mirror: false,
  terminating: false,
});

const tooMany = () => new ApiError({ code: 429, reason: 'TooManyRequests', message: 'budget' });

describe('forEachBounded (property)', () => {
  it('runs each item once, never more than the limit at a time, and all of them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 20 }),
        fc.integer({ min: 1, max: 6 }),
        async (delays, limit) => {
          let inFlight = 0;
          let most = 0;
          const seen: number[] = [];
          await forEachBounded(
            delays.map((d, i) => [i, d] as const),
            limit,
            async ([i, d]) => {
              inFlight += 1;
              most = Math.max(most, inFlight);
              for (let t = 0; t <= d; t++) await Promise.resolve();
              seen.push(i);
              inFlight -= 1;
            },
          );
          expect(seen.sort((a, b) => a - b)).toEqual(delays.map((_, i) => i));
          expect(most).toBeLessThanOrEqual(limit);
          if (delays.length > 0) expect(most).toBe(Math.min(limit, delays.length));
        },
      ),
    );
  });

  it('refuses a limit below 1', async () => {
    await expect(forEachBounded([1], 0, async () => {})).rejects.toThrow(/at least 1/);
  });
});

describe('evictPods', () => {
  it('answers every pod in order: evicted, gone, blocked, an error, and a hung one cut off', async () => {
    const clock = new ManualClock();
    const client = {
      evict: (key: { name: string }) => {
        if (key.name === 'pdb') return Promise.reject(tooMany());
        if (key.name === 'gone')
          return Promise.reject(new ApiError({ code: 404, reason: 'NotFound', message: 'x' }));
        if (key.name === 'bad') return Promise.reject(new Error('boom'));
        if (key.name === 'hung') return new Promise<void>(() => {});
        return Promise.resolve();
      },
    } as unknown as Client;
    const round = evictPods(client, ['ok', 'gone', 'pdb', 'bad', 'hung'].map(pod), {
      clock,
      parallelism: 2,
      timeoutMs: 5_000,
    });
    await flushMicrotasks();
    await clock.advanceAsync(5_000);
    const outcomes = await round;
    expect(outcomes.map((e) => [e.pod.name, e.outcome.result])).toEqual([
      ['ok', 'evicted'],
      ['gone', 'gone'],
      ['pdb', 'blocked'],
      ['bad', 'error'],
      ['hung', 'error'],
    ]);
    const hung = outcomes[4]?.outcome;
    expect(hung?.result === 'error' && String(hung.error)).toMatch(/did not answer within 5000 ms/);
  });

  it('backs a refused pod off on its own: the others are evicted meanwhile, it is tried again when due', async () => {
    const clock = new ManualClock();
    const tried: string[] = [];
    let refuse = true;
    const client = {
      evict: (key: { name: string }) => {
        tried.push(key.name);
        return key.name === 'pdb' && refuse ? Promise.reject(tooMany()) : Promise.resolve();
      },
    } as unknown as Client;
    const curve = { initialMs: 1_000, maxMs: 10_000 };
    const backoff = new EvictionBackoff(curve);
    await evictPods(client, [pod('pdb'), pod('a')], { clock, backoff });
    expect(tried).toEqual(['pdb', 'a']);
    expect(backoff.nextAt([pod('pdb')], clock.now())).toBe(clock.now() + 1_000);
    // A new pod arrives before pdb's backoff ends: it is evicted, pdb is passed over.
    await evictPods(client, [pod('pdb'), pod('b')], { clock, backoff });
    expect(tried).toEqual(['pdb', 'a', 'b']);
    clock.advance(1_000);
    await evictPods(client, [pod('pdb')], { clock, backoff });
    expect(backoff.nextAt([pod('pdb')], clock.now())).toBe(clock.now() + 2_000);
    clock.advance(2_000);
    refuse = false;
    await evictPods(client, [pod('pdb')], { clock, backoff });
    expect(tried).toEqual(['pdb', 'a', 'b', 'pdb', 'pdb']);
    expect(backoff.nextAt([pod('pdb')], clock.now())).toBeUndefined();
  });
});

describe('EvictionBackoff (property)', () => {
  it('holds a pod back exactly the curve after each refusal, never past the cap, and forgets it on success', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('blocked', 'error', 'evicted', 'gone'), { maxLength: 20 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 60_000 }),
        (results, initialMs, maxMs) => {
          const curve = { initialMs, maxMs };
          const backoff = new EvictionBackoff(curve);
          const p = pod('p');
          let now = 0;
          let refusals = 0;
          for (const result of results) {
            expect(backoff.isDue(p, now)).toBe(true);
            backoff.record(p, result as 'blocked', now);
            if (result === 'blocked' || result === 'error') {
              const wait = backoffDelay(refusals, curve);
              expect(wait).toBeLessThanOrEqual(maxMs);
              expect(backoff.nextAt([p], now)).toBe(now + wait);
              expect(backoff.isDue(p, now + wait - 1)).toBe(false);
              refusals += 1;
              now += wait;
            } else {
              refusals = 0;
              expect(backoff.nextAt([p], now)).toBeUndefined();
            }
          }
          backoff.retain([]);
          expect(backoff.isDue(p, 0)).toBe(true);
        },
      ),
    );
  });
});
