/** Node states the agent's pure tests start from. */
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import type { DecisionConfig, PodFacts } from '../src/api/index.js';

const k = capstanProtocol.annotations;

/** A node mid-cycle: asking, granted (fenced to `bootId`), in progress, cordoned by the agent. */
export function midCycleAnnotations(bootId = 'boot-1'): Record<string, string> {
  return {
    [k.rebootNeeded]: 'true',
    [k.rebootOk]: 'true',
    [k.rebootInProgress]: 'true',
    [k.agentMadeUnschedulable]: 'true',
    [coordinatorKeys.grantedBootId]: bootId,
  };
}

/** Settings for pure decisions where no timing matters: no drain timeout, a 1 s failure backoff. */
export const UNTIMED: DecisionConfig = {
  protocol: capstanProtocol,
  drainTimeoutMs: 0,
  forceReboot: false,
  failureBackoffMs: 1_000,
  podPollMs: 1,
};

/** A plain pod on the node (evicted by a drain unless `extra` says otherwise). */
export const pod = (name: string, extra: Partial<PodFacts> = {}): PodFacts => ({
  namespace: 'ns',
  name,
  uid: `uid-${name}`,
  daemonSet: false,
  mirror: false,
  terminating: false,
  ...extra,
});
