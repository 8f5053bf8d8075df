/**
 * The drain deadline survives an agent restart: the start of the drain is written on the node,
 * and a new process counts the timeout from it, not from zero.
 */
import { AGENT_DRAIN_STARTED_ANNOTATION, capstanProtocol, formatTimestamp } from '@capstan/reboot-protocol';
import { describe, expect, it } from 'vitest';
import { type AgentMemory, type DecisionConfig, INITIAL_MEMORY, type NodeFacts } from '../src/api/index.js';
import { decide } from '../src/decide/decide.js';
import { midCycleAnnotations } from './fixtures.js';

const NOW = 1_700_000_000_000;
const config: DecisionConfig = {
  protocol: capstanProtocol,
  drainTimeoutMs: 600_000,
  forceReboot: false,
  failureBackoffMs: 60_000,
  podPollMs: 500,
};
const pods = [
  { namespace: 'ns', name: 'db-0', uid: 'u', daemonSet: false, mirror: false, terminating: false },
];

function draining(extra: Record<string, string> = {}): NodeFacts {
  return {
    name: 'n1',
    labels: { [capstanProtocol.labels.rebootNeeded]: 'true' },
    unschedulable: true,
    bootID: 'boot-1',
    annotations: { ...midCycleAnnotations(), ...extra },
  };
}
const at = (node: NodeFacts, now: number, memory: AgentMemory) =>
  decide(
    { now, node, source: { rebootNeeded: true }, sourceKnown: true, os: undefined, pods },
    memory,
    config,
  );

describe('the drain deadline', () => {
  it('is written on the node when the drain starts', () => {
    const d = at(draining(), NOW, INITIAL_MEMORY);
    expect(d.action).toMatchObject({
      kind: 'patch',
      patch: { annotations: { [AGENT_DRAIN_STARTED_ANNOTATION]: formatTimestamp(NOW) } },
    });
    expect(d.memory.drainStartedAt).toBe(NOW);
  });

  it('counts from the written start after a restart, so the timeout still ends the drain', () => {
    // A new process (fresh memory) 11 minutes after the drain began, the pod still there.
    const node = draining({ [AGENT_DRAIN_STARTED_ANNOTATION]: formatTimestamp(NOW) });
    const d = at(node, NOW + 11 * 60_000, INITIAL_MEMORY);
    expect(d.phase).toBe('Abandoning');
    expect(d.why).toMatch(/drain did not finish within 600s/);
  });

  it('refuses a start dated in the future and starts counting now', () => {
    const node = draining({ [AGENT_DRAIN_STARTED_ANNOTATION]: formatTimestamp(NOW + 86_400_000) });
    const d = at(node, NOW, INITIAL_MEMORY);
    expect(d.action).toMatchObject({
      patch: { annotations: { [AGENT_DRAIN_STARTED_ANNOTATION]: formatTimestamp(NOW) } },
    });
  });
});
