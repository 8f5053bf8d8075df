/**
 * The coordinator under the runtime's conformance harness: its own wiring (addCoordinator, as main
 * calls it) on a manager over the fake cluster, perturbed by crashes after writes, stale caches,
 * lost and merged events, injected answers and clock jumps.
 */
import { checkConformance } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { coordinatorScenario } from './coordinator-scenario.js';

describe('the coordinator under the conformance harness', () => {
  it('never grants over budget, reboots every node once and converges without writes', async () => {
    const report = await checkConformance(coordinatorScenario, { numRuns: 15, seed: 47 });
    expect(report.failure).toBeUndefined();
  }, 300_000);
});
