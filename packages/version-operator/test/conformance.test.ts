/**
 * The version operator under the runtime's conformance harness: `addVersionOperator` (as main
 * wires it) on a manager over the fake cluster, perturbed by crashes after writes, stale caches,
 * lost and merged events, injected answers and clock jumps, with kube-controller-manager played.
 */
import { checkConformance, runSchedule } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { stackScenario } from './stack-scenario.js';

describe('the version operator under the conformance harness', () => {
  it('upgrades the coordinator before the agent, the agent within its bound, and leaves nothing', async () => {
    const report = await checkConformance(stackScenario(), { numRuns: 8, seed: 47 });
    expect(report.runs).toBe(8);
  }, 300_000);

  // What the harness first found (seed 47, no perturbation at all): the operator applied all of
  // its objects again on every reconcile of a converged stack, ~20 write requests each time.
  it('a converged stack is left alone: a fresh operator writes nothing', async () => {
    expect(await runSchedule(stackScenario(), { slots: [[], [], []] })).toBeUndefined();
  }, 60_000);
});
