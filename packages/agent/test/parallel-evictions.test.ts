/**
 * Evictions run in parallel, bounded (kubectl drain evicts all at once; the agent at most
 * `evictionParallelism`), each with its own time limit; refusals (429) still back off the round.
 */
import { ApiError } from '@capstan/runtime';
import type { Node } from '@capstan/runtime/client';
import { flushMicrotasks, ManualClock } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import type { PodFacts } from '../src/api/index.js';
import { AgentReconciler, type AgentReconcilerDeps } from '../src/index.js';
import { pod } from './fixtures.js';

describe('a round of evictions', () => {
  it('runs two at a time, times out a hung one, and backs the round off for it and for a 429', async () => {
    const clock = new ManualClock();
    const started: string[] = [];
    const finish = new Map<string, () => void>();
    const results: string[] = [];
    const deps = {
      clock,
      client: {
        evict: (key: { name: string }) => {
          started.push(key.name);
          if (key.name === 'pdb')
            return Promise.reject(new ApiError({ code: 429, reason: 'TooManyRequests', message: 'budget' }));
          return new Promise<void>((resolve) => finish.set(key.name, resolve));
        },
      },
      metrics: { evictions: { inc: (l: { result: string }) => results.push(l.result) } },
      log: { warn: () => {} },
      events: { record: () => {} },
      evictionRetry: { initialMs: 1_000, maxMs: 10_000 },
      evictionParallelism: 2,
      evictionTimeoutMs: 5_000,
    } as unknown as AgentReconcilerDeps;
    const reconciler = new AgentReconciler(deps);
    // The round is what the reconciler runs for an `evict` decision.
    const round = (reconciler as unknown as { evict(p: PodFacts[], n: Node): Promise<void> }).evict(
      [pod('a'), pod('hung'), pod('pdb'), pod('b')],
      { metadata: { name: 'n1' } } as Node,
    );
    await flushMicrotasks();
    expect(started).toEqual(['a', 'hung']);
    finish.get('a')?.();
    await flushMicrotasks();
    // 'pdb' is refused at once, then 'b' starts: still two in flight ('hung' and 'b').
    expect(started).toEqual(['a', 'hung', 'pdb', 'b']);
    finish.get('b')?.();
    await clock.advanceAsync(5_000);
    await round;
    expect(results.sort()).toEqual(['blocked', 'error', 'evicted', 'evicted']);
    expect(reconciler.memory.blockedRounds).toBe(1);
    expect(reconciler.memory.nextEvictionAt).toBe(clock.now() + 1_000);
  });
});
