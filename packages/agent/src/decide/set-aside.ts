/**
 * `SetAside`: the coordinator set the node aside (its group's `onFailure: SetAside` policy, the
 * `set-aside` annotation) and withdrew its grant. The agent quarantines it: the cycle ends, the
 * node is cordoned (recorded as the agent's cordon, so only that is lifted later) and stays so
 * until an administrator clears the failure (`clear-failure`: the coordinator removes the mark),
 * after which the agent lifts its own cordon like any cycle's end. An administrator's cordon is
 * never claimed.
 */
import { AGENT_DRAIN_STARTED_ANNOTATION, coordinatorKeys, FALSE, TRUE } from '@capstan/reboot-protocol';
import type { Decision } from '../api/types.js';
import { diff, type PhaseInput, patchDecision, resetDrain } from './facts.js';

/** `SetAside`: cordon (the agent's own cordon) and end any cycle; then wait for the clear. */
export function settingAside({ view, memory, config, grant: f }: PhaseInput): Decision {
  const { node } = view;
  const k = config.protocol.annotations;
  const patch = diff(node, {
    annotations: {
      [k.rebootInProgress]: FALSE,
      [AGENT_DRAIN_STARTED_ANNOTATION]: null,
      // Ours when we cordon it now, or when we had cordoned it already (a cycle's cordon kept).
      [k.agentMadeUnschedulable]: !node.unschedulable || f.agentMade ? TRUE : FALSE,
    },
    labels: {},
    unschedulable: true,
  });
  const why = `set aside by the coordinator (${node.annotations[coordinatorKeys.setAside] || 'failed'}): kept cordoned until ${coordinatorKeys.clearFailure} is set`;
  if (!patch) return { phase: 'SetAside', why, action: { kind: 'wait' }, memory: resetDrain(memory) };
  const decision = patchDecision('SetAside', why, patch, resetDrain(memory));
  if (patch.unschedulable === true) {
    decision.action = {
      kind: 'patch',
      patch,
      event: {
        type: 'Warning',
        reason: 'SetAside',
        action: 'Cordon',
        note: `${why}: cordoned the node`,
      },
    };
  }
  return decision;
}
