/**
 * The phases around a grant: no usable grant (`Idle`), a grant while an earlier failure is still
 * fresh (`Backoff`), taking the node out of service (`Cordoning`), and the reboot accepted
 * (`Rebooting`, waiting for the machine to go down).
 */
import {
  AGENT_DRAIN_STARTED_ANNOTATION,
  AGENT_FAILURE_ANNOTATION,
  AGENT_TARGET_VERSION_ANNOTATION,
  FALSE,
  formatTimestamp,
  parseAgentFailure,
  TRUE,
} from '@capstan/reboot-protocol';
import type { Decision } from '../api/types.js';
import { diff, type PhaseInput, resetDrain } from './facts.js';

/** How long the failure backoff still runs before a new cycle may start (≤ 0: it has passed). */
export function failureBackoffLeft({ view, config }: PhaseInput): number {
  const last = parseAgentFailure(view.node.annotations[AGENT_FAILURE_ANNOTATION]);
  // A failure dated in the future is refused (a skewed clock, a hand edit): waiting for it could
  // last any time. The next failure, if any, writes a fresh one.
  if (!last || last.at > view.now) return 0;
  return last.at + config.failureBackoffMs - view.now;
}

/** `Idle`: reporting what the source says; nothing granted to act on. */
export function idle({ view, memory, grant: f }: PhaseInput): Decision {
  const why = !f.needed
    ? 'no reboot needed'
    : !f.ok
      ? 'reboot needed; waiting for the grant'
      : `ignoring a stale grant: it belongs to boot ${f.grantedBootId}, this boot is ${view.node.bootID || '(unknown)'}`;
  return { phase: 'Idle', why, action: { kind: 'wait' }, memory: resetDrain(memory) };
}

/** `Backoff`: granted, but the last cycle failed too recently to start another. */
export function backoff(input: PhaseInput): Decision {
  const left = failureBackoffLeft(input);
  const last = parseAgentFailure(input.view.node.annotations[AGENT_FAILURE_ANNOTATION]);
  return {
    phase: 'Backoff',
    why: `the last cycle failed (${last?.reason}); starting again in ${Math.ceil(left / 1000)}s`,
    action: { kind: 'wait', recheckAfterMs: left },
    memory: input.memory,
  };
}

/** `Cordoning`: in-progress and the cordon in one write, remembering whether the cordon is ours. */
export function cordoning({ view, memory, config, grant: f }: PhaseInput): Decision {
  const { node } = view;
  const k = config.protocol.annotations;
  const agentMade = node.unschedulable ? (f.agentMade ? TRUE : FALSE) : TRUE;
  const patch = diff(node, {
    annotations: {
      [k.rebootInProgress]: TRUE,
      [k.agentMadeUnschedulable]: agentMade,
      ...(f.inProgress
        ? {}
        : {
            [AGENT_FAILURE_ANNOTATION]: null,
            // The drain starts with the cordon: its clock is written in the same write (one
            // request less per reboot; `Draining` writes it only when a cycle lacks one).
            [AGENT_DRAIN_STARTED_ANNOTATION]: formatTimestamp(view.now),
            // What the source says this reboot boots into, checked after it (phases/verify.ts).
            [AGENT_TARGET_VERSION_ANNOTATION]: view.source?.newVersion || null,
          }),
    },
    labels: {},
    unschedulable: true,
  }) ?? { annotations: {}, labels: {} };
  return {
    phase: 'Cordoning',
    why: f.inProgress ? 'the node was uncordoned mid-cycle: cordoning again' : 'reboot granted',
    action: {
      kind: 'patch',
      patch,
      event: {
        type: 'Normal',
        reason: 'RebootCycleStarted',
        action: 'Cordon',
        note: node.unschedulable
          ? 'reboot granted; the node was already unschedulable (left as found after the reboot)'
          : 'reboot granted: cordoned the node, draining',
      },
    },
    memory: f.inProgress ? resetDrain(memory) : { ...resetDrain(memory), drainStartedAt: view.now },
  };
}

/** `Rebooting` after the reboot was accepted: do nothing more, the machine is going down. */
export function rebooting({ memory }: PhaseInput): Decision {
  return {
    phase: 'Rebooting',
    why: 'the reboot was accepted; waiting for the machine to go down',
    action: { kind: 'wait' },
    memory,
  };
}
