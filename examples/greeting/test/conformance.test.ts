/**
 * The Greeting controller's conformance: the builder code of main, on the fake cluster, under
 * crashes after writes, stale caches, lost and merged events, injected answers and clock jumps.
 */
import { checkConformance, runSchedule } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { greetingScenario } from './greeting-scenario.js';

describe('the Greeting controller under the conformance harness', () => {
  it('converges, is idempotent and leaks nothing under every searched schedule', async () => {
    const report = await checkConformance(greetingScenario, { numRuns: 25, seed: 47 });
    expect(report.failure).toBeUndefined();
    expect(report.runs).toBe(25);
  }, 120_000);

  it('passes a schedule with every kind of perturbation at once', async () => {
    const violation = await runSchedule(greetingScenario, {
      slots: [
        [{ kind: 'crash', afterWrites: 1 }],
        [
          { kind: 'stale', afterWrites: 0, forMs: 5_000, end: 'lose' },
          { kind: 'answer', verb: 'patch', nth: 1, answer: 'timeout' },
        ],
        [
          { kind: 'stale', afterWrites: 0, forMs: 2_000, end: 'merge' },
          { kind: 'answer', verb: 'create', nth: 1, answer: 429 },
        ],
        [
          { kind: 'jump', ms: 20 * 60_000 },
          { kind: 'answer', verb: 'get', nth: 1, answer: 500 },
        ],
      ],
    });
    expect(violation).toBeUndefined();
  }, 60_000);
});
