/**
 * A refused reboot backs off and keeps the node drained: the agent writes why, leaves the node
 * cordoned and in progress, and asks again after a backoff that doubles with each refusal, never
 * uncordoning and draining again in between (which only moved the pods twice).
 */
import { AGENT_FAILURE_ANNOTATION, capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AgentMemory, type DecisionConfig, INITIAL_MEMORY, type NodeFacts } from '../src/api/index.js';
import { decide } from '../src/decide/decide.js';
import { afterRebootRefused, rebootRetryDelay } from '../src/index.js';

const k = capstanProtocol.annotations;
const START = 1_700_000_000_000;

interface Run {
  /** When each reboot was asked, in ms after the start. */
  attempts: number[];
  evictions: number;
  cordons: number;
  uncordons: number;
  phases: string[];
}

/**
 * Plays the reconciler over {@link decide}: a granted node with one pod that goes once evicted,
 * a rebooter that refuses `refusals` times, time moved to each recheck.
 */
function simulate(refusals: number, failureBackoffMs: number): Run {
  const config: DecisionConfig = {
    protocol: capstanProtocol,
    drainTimeoutMs: 0,
    forceReboot: false,
    failureBackoffMs,
    podPollMs: 500,
  };
  let node: NodeFacts = {
    name: 'n1',
    annotations: { [k.rebootNeeded]: 'true', [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: 'b1' },
    labels: {},
    unschedulable: false,
    bootID: 'b1',
  };
  let memory: AgentMemory = { ...INITIAL_MEMORY, booted: true };
  let now = START;
  let podGone = false;
  const run: Run = { attempts: [], evictions: 0, cordons: 0, uncordons: 0, phases: [] };
  for (let step = 0; step < 500; step++) {
    const pods = podGone
      ? []
      : [{ namespace: 'ns', name: 'web', uid: 'u', daemonSet: false, mirror: false, terminating: false }];
    const d = decide(
      { now, node, source: { rebootNeeded: true }, sourceKnown: true, os: undefined, pods },
      memory,
      config,
    );
    run.phases.push(d.phase);
    const a = d.action;
    if (a.kind === 'wait') {
      if (a.recheckAfterMs === undefined) return run;
      now += a.recheckAfterMs;
      memory = d.memory;
    } else if (a.kind === 'patch') {
      const annotations = { ...node.annotations };
      for (const [key, v] of Object.entries(a.patch.annotations)) {
        if (v === null) delete annotations[key];
        else annotations[key] = v;
      }
      if (a.patch.unschedulable === true) run.cordons += 1;
      if (a.patch.unschedulable === false) run.uncordons += 1;
      const labels = { ...node.labels };
      for (const [key, v] of Object.entries(a.patch.labels)) {
        if (v === null) delete labels[key];
        else labels[key] = v;
      }
      node = { ...node, annotations, labels, unschedulable: a.patch.unschedulable ?? node.unschedulable };
      memory = d.memory;
    } else if (a.kind === 'evict') {
      run.evictions += 1;
      podGone = true;
      memory = d.memory;
    } else if (a.kind === 'reboot') {
      run.attempts.push(now - START);
      if (run.attempts.length > refusals) return run;
      // As the reconciler: the memory before the decision, with the refusal noted.
      memory = afterRebootRefused(memory, 'polkit said no');
    } else memory = d.memory;
  }
  throw new Error(`no end in 500 steps: ${run.phases.slice(-5).join(', ')}`);
}

describe('a refused reboot', () => {
  it('keeps the node cordoned and drained and retries after a doubling backoff', () => {
    const run = simulate(3, 60_000);
    expect(run.attempts).toEqual([0, 60_000, 60_000 + 120_000, 60_000 + 120_000 + 240_000]);
    expect(run.cordons).toBe(1);
    expect(run.uncordons).toBe(0);
    expect(run.evictions).toBe(1);
    expect(run.phases).toContain('RebootRefused');
    expect(run.phases).not.toContain('Abandoning');
  });

  it('writes why with the refusal, as the coordinator reads it', () => {
    const memory = afterRebootRefused({ ...INITIAL_MEMORY, booted: true }, 'Access denied');
    expect(memory.failure).toEqual({ reason: 'RebootFailed', message: 'reboot failed: Access denied' });
    const d = decide(
      {
        now: START,
        node: {
          name: 'n1',
          annotations: { [k.rebootNeeded]: 'true', [k.rebootOk]: 'true', [k.rebootInProgress]: 'true' },
          labels: { [capstanProtocol.labels.rebootNeeded]: 'true' },
          unschedulable: true,
          bootID: 'b1',
        },
        source: { rebootNeeded: true },
        sourceKnown: true,
        os: undefined,
      },
      memory,
      {
        protocol: capstanProtocol,
        drainTimeoutMs: 0,
        forceReboot: false,
        failureBackoffMs: 1_000,
        podPollMs: 1,
      },
    );
    expect(d.phase).toBe('RebootRefused');
    expect(d.action).toMatchObject({
      kind: 'patch',
      failure: 'RebootFailed',
      patch: {
        annotations: {
          [AGENT_FAILURE_ANNOTATION]: `RebootFailed ${new Date(START).toISOString()}: reboot failed: Access denied`,
        },
        labels: {},
      },
      event: { type: 'Warning', reason: 'RebootFailed', action: 'Reboot' },
    });
    expect(d.action.kind === 'patch' && d.action.patch.unschedulable).toBeUndefined();
  });

  it('property: never uncordons, drains once, waits longer each time up to 8 backoffs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1_000, max: 3_600_000 }),
        (refusals, backoff) => {
          const run = simulate(refusals, backoff);
          expect(run.attempts).toHaveLength(refusals + 1);
          expect(run.uncordons).toBe(0);
          expect(run.cordons).toBe(1);
          expect(run.evictions).toBe(1);
          const gaps = run.attempts.slice(1).map((t, i) => t - (run.attempts[i] as number));
          gaps.forEach((gap, i) => {
            expect(gap).toBe(rebootRetryDelay(i + 1, backoff));
            expect(gap).toBeGreaterThanOrEqual(backoff);
            expect(gap).toBeLessThanOrEqual(8 * backoff);
            if (i > 0) expect(gap).toBeGreaterThanOrEqual(gaps[i - 1] as number);
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});
