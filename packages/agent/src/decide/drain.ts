/**
 * `Draining`: cordoned and in progress, the agent evicts every pod but DaemonSet and mirror pods,
 * waits for them to be gone, then asks for the reboot. Evictions refused by a disruption budget
 * are retried with backoff ({@link afterEvictions}); a drain past its timeout reboots anyway only
 * with `forceReboot`, and otherwise abandons the cycle.
 */
import { AGENT_DRAIN_STARTED_ANNOTATION, formatTimestamp, parseTimestamp } from '@capstan/reboot-protocol';
import type { Decision } from '../api/types.js';
import { drainPlan, type PhaseInput, type PhaseStep, patchDecision } from './facts.js';
import { rebootBackoff, rebootRetryLeft } from './reboot-retry.js';

/** `Draining`, ending in the reboot (`Rebooting`) or a failure to abandon the cycle with. */
export function draining(input: PhaseInput): PhaseStep {
  const { view, memory, config } = input;
  const { now } = view;
  if (memory.drainStartedAt === undefined) {
    // The deadline outlives the process: an earlier agent of this cycle may have started it
    // (a start dated in the future is refused and written afresh).
    const persisted = parseTimestamp(view.node.annotations[AGENT_DRAIN_STARTED_ANNOTATION]);
    if (persisted !== undefined && persisted <= now)
      return { settle: { ...memory, drainStartedAt: persisted } };
    return patchDecision(
      'Draining',
      'drain started: recording when',
      { annotations: { [AGENT_DRAIN_STARTED_ANNOTATION]: formatTimestamp(now) }, labels: {} },
      { ...memory, drainStartedAt: now },
    );
  }
  if (!view.pods) return { phase: 'Draining', why: 'listing pods', action: { kind: 'listPods' }, memory };
  const plan = drainPlan(view.pods);
  const drained = plan.evict.length === 0 && plan.terminating.length === 0;
  const timedOut = config.drainTimeoutMs > 0 && now - memory.drainStartedAt >= config.drainTimeoutMs;
  // A refused reboot is retried on the drained node after its backoff, never drained again.
  const retryLeft = drained || (timedOut && config.forceReboot) ? rebootRetryLeft(input) : 0;
  if (retryLeft > 0) return rebootBackoff(input, retryLeft);
  if (drained) {
    return reboot(
      `drained (${plan.skipped.length} DaemonSet or mirror pods left in place); rebooting`,
      false,
      memory,
      now,
    );
  }
  if (timedOut) {
    const left = [...plan.evict, ...plan.terminating];
    const names = left
      .slice(0, 5)
      .map((p) => `${p.namespace}/${p.name}`)
      .join(', ');
    const message = `drain did not finish within ${config.drainTimeoutMs / 1000}s: ${left.length} pod(s) left (${names}${left.length > 5 ? ', …' : ''})`;
    if (config.forceReboot) return reboot(`${message}; rebooting anyway (force-reboot)`, true, memory, now);
    return { settle: { ...memory, failure: { reason: 'DrainFailed', message } } };
  }
  if (plan.evict.length > 0 && now >= (memory.nextEvictionAt ?? 0)) {
    return {
      phase: 'Draining',
      why: `evicting ${plan.evict.length} pod(s)`,
      action: { kind: 'evict', pods: plan.evict },
      memory,
    };
  }
  const deadline =
    config.drainTimeoutMs > 0
      ? memory.drainStartedAt + config.drainTimeoutMs - now
      : Number.POSITIVE_INFINITY;
  const untilEviction =
    plan.evict.length > 0 ? (memory.nextEvictionAt ?? now) - now : Number.POSITIVE_INFINITY;
  const recheck = Math.max(
    1,
    Math.min(untilEviction, plan.terminating.length > 0 ? config.podPollMs : untilEviction, deadline),
  );
  return {
    phase: 'Draining',
    why:
      plan.evict.length > 0
        ? `${plan.evict.length} eviction(s) refused by a disruption budget; retrying`
        : `waiting for ${plan.terminating.length} evicted pod(s) to be gone`,
    action: { kind: 'wait', recheckAfterMs: recheck },
    memory,
  };
}

function reboot(why: string, forced: boolean, memory: PhaseInput['memory'], now: number): Decision {
  return {
    phase: 'Rebooting',
    why,
    action: { kind: 'reboot', forced },
    memory: { ...memory, rebootRequestedAt: now },
  };
}
