import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AgentMemory, INITIAL_MEMORY } from '../src/api/index.js';
import { afterEvictions, DEFAULT_EVICTION_RETRY } from '../src/decide/eviction-backoff.js';

const NOW = 1_700_000_000_000;
const draining: AgentMemory = { ...INITIAL_MEMORY, booted: true, drainStartedAt: NOW - 1_000 };

describe('eviction backoff', () => {
  it('waits 1 s, 2 s, 4 s ... up to 10 s while evictions are refused, and says so once', () => {
    let memory = draining;
    const waits: number[] = [];
    const events: string[] = [];
    for (let round = 0; round < 6; round++) {
      const after = afterEvictions(memory, ['ns/web-1'], NOW);
      memory = after.memory;
      waits.push((memory.nextEvictionAt ?? NOW) - NOW);
      if (after.event) events.push(after.event.reason);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
    expect(events).toEqual(['EvictionBlocked']);
    expect(memory.blockedRounds).toBe(6);
  });

  it('forgets the refusals after a clean round', () => {
    const blocked = afterEvictions({ ...draining, blockedRounds: 3 }, ['ns/a'], NOW).memory;
    const clean = afterEvictions(blocked, [], NOW + 10_000);
    expect(clean.memory.blockedRounds).toBe(0);
    expect(clean.memory.nextEvictionAt).toBeUndefined();
    expect(clean.event).toBeUndefined();
  });

  it('never schedules the next round in the past or beyond the cap, and keeps the rest of the memory', () => {
    fc.assert(
      fc.property(
        fc.nat(100),
        fc.array(fc.constantFrom('ns/a', 'ns/b'), { maxLength: 3 }),
        fc.record({
          initialMs: fc.integer({ min: 1, max: 5000 }),
          maxMs: fc.integer({ min: 1, max: 60_000 }),
        }),
        (rounds, refused, retry) => {
          const { memory } = afterEvictions({ ...draining, blockedRounds: rounds }, refused, NOW, retry);
          expect(memory.drainStartedAt).toBe(draining.drainStartedAt);
          if (refused.length === 0) {
            expect(memory.blockedRounds).toBe(0);
            return;
          }
          expect(memory.blockedRounds).toBe(rounds + 1);
          const wait = (memory.nextEvictionAt as number) - NOW;
          expect(wait).toBeGreaterThan(0);
          expect(wait).toBeLessThanOrEqual(retry.maxMs);
        },
      ),
    );
    expect(DEFAULT_EVICTION_RETRY).toEqual({ initialMs: 1_000, maxMs: 10_000 });
  });
});
