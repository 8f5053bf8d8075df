/**
 * The node keeps its place in the coordinator's queue across an agent restart and while the
 * reboot-needed source cannot tell (D-Bus not up yet): the last known answer stands until the
 * source answers.
 */
import { capstanProtocol } from '@capstan/reboot-protocol';
import { describe, expect, it } from 'vitest';
import { type AgentMemory, type DecisionConfig, INITIAL_MEMORY, type NodeFacts } from '../src/api/index.js';
import { decide } from '../src/decide/decide.js';
import { AgentReconciler, type AgentReconcilerDeps } from '../src/index.js';

const k = capstanProtocol.annotations;
const l = capstanProtocol.labels;
const config: DecisionConfig = {
  protocol: capstanProtocol,
  drainTimeoutMs: 10_000,
  forceReboot: false,
  failureBackoffMs: 60_000,
  podPollMs: 500,
};
const asking: NodeFacts = {
  name: 'n1',
  annotations: { [k.rebootNeeded]: 'true', [k.rebootInProgress]: 'false' },
  labels: { [l.rebootNeeded]: 'true' },
  unschedulable: false,
  bootID: 'boot-1',
};

describe('the last known reboot-needed state', () => {
  it('survives an agent start: nothing is decided before the source answers, and a grantless start keeps it', () => {
    const at = (sourceKnown: boolean, memory: AgentMemory) =>
      decide(
        {
          now: 1_700_000_000_000,
          node: asking,
          source: sourceKnown ? { rebootNeeded: true } : undefined,
          sourceKnown,
          os: undefined,
        },
        memory,
        config,
      );
    const before = at(false, INITIAL_MEMORY);
    expect(before.phase).toBe('AwaitingSource');
    expect(before.action).toEqual({ kind: 'wait' });
    expect(before.memory).toBe(INITIAL_MEMORY);
    let memory: AgentMemory = INITIAL_MEMORY;
    for (let i = 0; i < 5; i++) {
      const d = at(true, memory);
      memory = d.memory;
      if (d.action.kind === 'patch') {
        expect(d.action.patch.annotations[k.rebootNeeded]).not.toBe('false');
        expect(d.action.patch.labels[l.rebootNeeded]).not.toBe('false');
      }
      if (d.action.kind === 'wait') break;
    }
    expect(memory.booted).toBe(true);
  });

  it('is not replaced by a source that cannot tell', () => {
    const warned: string[] = [];
    const gauge: number[] = [];
    const reconciler = new AgentReconciler({
      log: { warn: (_o: unknown, m: string) => warned.push(m) },
      metrics: { rebootNeeded: { set: (v: number) => gauge.push(v) }, sourceError: { set: () => {} } },
    } as unknown as AgentReconcilerDeps);
    reconciler.sourceReported({ rebootNeeded: true });
    reconciler.sourceReported({ rebootNeeded: false, error: 'org.freedesktop.DBus.Error.ServiceUnknown' });
    expect(reconciler.source).toEqual({ rebootNeeded: true });
    expect(reconciler.sourceKnown).toBe(true);
    expect(gauge).toEqual([1]);
    expect(warned).toHaveLength(1);
  });
});
