/**
 * The two ways a cycle ends without a reboot. `Aborting`: the grant went away (withdrawn, no
 * longer needed, or fenced to another boot). `Abandoning`: the drain failed; the
 * agent writes why and when (the failure annotation also paces the next try). Both lift only a
 * cordon the agent made.
 */
import { AGENT_FAILURE_ANNOTATION, formatAgentFailure } from '@capstan/reboot-protocol';
import type { Decision, NodePatch } from '../api/types.js';
import { endCycle, type PhaseInput, resetDrain } from './facts.js';

/** `Aborting`: stop the cycle the grant no longer covers. */
export function aborting({ view, memory, config, grant: f }: PhaseInput): Decision {
  const { node } = view;
  const why = !f.ok
    ? `${config.protocol.annotations.rebootOk} was withdrawn`
    : !f.needed
      ? 'a reboot is no longer needed'
      : `the grant belongs to boot ${f.grantedBootId}, not to this boot ${node.bootID || '(unknown)'}`;
  const patch = endCycle(node, f, config.protocol);
  return {
    phase: 'Aborting',
    why,
    action: {
      kind: 'patch',
      patch: patch ?? { annotations: {}, labels: {} },
      ...(f.inProgress
        ? {
            event: {
              type: 'Normal',
              reason: 'RebootCycleAborted',
              action: 'Uncordon',
              note: `${why}: stopped the reboot cycle${patch?.unschedulable === false ? ' and uncordoned the node' : ''}`,
            },
          }
        : patch?.unschedulable === false
          ? {
              // A cordon the agent kept with no cycle running: a set-aside node cleared.
              event: {
                type: 'Normal',
                reason: 'Uncordoned',
                action: 'Uncordon',
                note: 'no reboot cycle holds the node (its set-aside was cleared): uncordoned the node the agent had cordoned',
              },
            }
          : {}),
    },
    memory: resetDrain(memory),
  };
}

/** `Abandoning` (the drain failed): uncordon what we cordoned, clear in-progress, write why. */
export function abandoning({ view, memory, config, grant: f }: PhaseInput): Decision {
  const failure = memory.failure as NonNullable<typeof memory.failure>;
  const base = endCycle(view.node, f, config.protocol);
  const patch: NodePatch = {
    annotations: {
      ...base?.annotations,
      [AGENT_FAILURE_ANNOTATION]: formatAgentFailure(failure.reason, view.now, failure.message),
    },
    labels: { ...base?.labels },
    ...(base?.unschedulable !== undefined ? { unschedulable: base.unschedulable } : {}),
  };
  const uncordoned = patch.unschedulable === false;
  return {
    phase: 'Abandoning',
    why: failure.message,
    action: {
      kind: 'patch',
      patch,
      failure: failure.reason,
      event: {
        type: 'Warning',
        reason: failure.reason,
        action: 'Drain',
        note: `${failure.message}; not rebooting${uncordoned ? ', uncordoned the node' : ''}; retrying in ${Math.round(config.failureBackoffMs / 1000)}s while the grant holds`,
      },
    },
    memory: { ...resetDrain(memory), failure: undefined },
  };
}
