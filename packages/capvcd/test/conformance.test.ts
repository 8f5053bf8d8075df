/**
 * capvcd under the runtime's conformance harness: `addCapvcd` (as main wires it) on a manager over
 * the fake cluster, vcdsim served in-process on the same virtual clock, perturbed by crashes after
 * writes, stale caches, lost and merged events, injected answers and clock jumps.
 */
import { checkConformance, runSchedule } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { capvcdScenario } from './capvcd-scenario.js';

describe('capvcd under the conformance harness', () => {
  it('one VM per VCDMachine, one load balancer, every delete completes and leaves nothing in VCD', async () => {
    const report = await checkConformance(capvcdScenario(), { numRuns: 8, seed: 47 });
    expect(report.runs).toBe(8);
  }, 300_000);

  // What the harness first found (seed 47, no perturbation): a converged reconcile patched the
  // VCDCluster's status with nothing (the same status in another key order), and the cluster's
  // delete waited on a VCDMachine already gone (the client kept the finalizer removal's answer).
  it('a converged cluster is left alone, and its delete completes at once', async () => {
    expect(await runSchedule(capvcdScenario(), { slots: [[], [], [], []] })).toBeUndefined();
  }, 60_000);
});
