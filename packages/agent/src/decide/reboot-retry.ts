/**
 * A refused reboot (logind said no, the host command failed) keeps the node as it is: cordoned,
 * in progress, drained. The agent writes why (`RebootRefused`) and tries the reboot again after a
 * backoff that doubles with each refusal in a row, from the failure annotation's time, so an
 * agent restarted meanwhile keeps the pace. Draining again would only move the pods twice.
 */
import {
  AGENT_DRAIN_STARTED_ANNOTATION,
  AGENT_FAILURE_ANNOTATION,
  formatAgentFailure,
  parseAgentFailure,
  parseTimestamp,
} from '@capstan/reboot-protocol';
import { backoffDelay } from '@capstan/runtime';
import type { AgentMemory, Decision } from '../api/types.js';
import type { PhaseInput } from './facts.js';

/** The longest wait between reboot attempts, in failure backoffs. */
const MAX_RETRY_FACTOR = 8;

/** The wait after the `refusals`-th refusal in a row (1-based): the failure backoff, doubling. */
export function rebootRetryDelay(refusals: number, failureBackoffMs: number): number {
  return backoffDelay(Math.max(0, refusals - 1), {
    initialMs: failureBackoffMs,
    maxMs: failureBackoffMs * MAX_RETRY_FACTOR,
  });
}

/**
 * How long until the reboot may be asked again (≤ 0: now). Only a refusal of this cycle counts:
 * one written after the drain started. A refusal dated in the future is ignored (a skewed clock).
 */
export function rebootRetryLeft({ view, memory, config }: PhaseInput): number {
  const last = parseAgentFailure(view.node.annotations[AGENT_FAILURE_ANNOTATION]);
  if (last?.reason !== 'RebootFailed' || last.at > view.now) return 0;
  const drainStarted = parseTimestamp(view.node.annotations[AGENT_DRAIN_STARTED_ANNOTATION]);
  if (drainStarted === undefined || last.at < drainStarted) return 0;
  return last.at + rebootRetryDelay(memory.rebootFailures ?? 1, config.failureBackoffMs) - view.now;
}

/** The memory after the rebooter refused (`message` says why): the failure to report, counted. */
export function afterRebootRefused(memory: AgentMemory, message: string): AgentMemory {
  return {
    ...memory,
    failure: { reason: 'RebootFailed', message: `reboot failed: ${message}` },
    rebootFailures: (memory.rebootFailures ?? 0) + 1,
  };
}

/** `RebootRefused`: writes why and when, keeps the cordon and the drain, backs off. */
export function rebootRefused({ view, memory, config }: PhaseInput): Decision {
  const failure = memory.failure as NonNullable<typeof memory.failure>;
  const refusals = memory.rebootFailures ?? 1;
  const delay = rebootRetryDelay(refusals, config.failureBackoffMs);
  return {
    phase: 'RebootRefused',
    why: failure.message,
    action: {
      kind: 'patch',
      patch: {
        annotations: {
          [AGENT_FAILURE_ANNOTATION]: formatAgentFailure(failure.reason, view.now, failure.message),
        },
        labels: {},
      },
      failure: failure.reason,
      event: {
        type: 'Warning',
        reason: failure.reason,
        action: 'Reboot',
        note: `${failure.message}; the node stays cordoned and drained; retrying the reboot in ${Math.round(delay / 1000)}s (refusal ${refusals} in a row)`,
      },
    },
    memory: { ...memory, failure: undefined },
  };
}

/** `Backoff` while draining: drained, the last reboot refused, its retry not due yet. */
export function rebootBackoff(input: PhaseInput, left: number): Decision {
  const last = parseAgentFailure(input.view.node.annotations[AGENT_FAILURE_ANNOTATION]);
  return {
    phase: 'Backoff',
    why: `the reboot was refused (${last?.message}); the node stays drained; retrying in ${Math.ceil(left / 1000)}s`,
    action: { kind: 'wait', recheckAfterMs: left },
    memory: input.memory,
  };
}
