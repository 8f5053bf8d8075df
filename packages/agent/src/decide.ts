/**
 * The agent's decisions: a pure function from what it sees (its node, its pods, the reboot-needed
 * source, os-release) and what it remembers since its process started, to the next single action.
 * No I/O here: `reconciler.ts` reads the world, calls {@link decide}, carries out the action and
 * calls it again until the answer is "wait".
 *
 * Safety (invariant 5): reboot only after seeing `reboot-ok` ∧ `reboot-needed` with a grant that
 * belongs to this boot, with the cordon persisted (in-progress and cordon are one write) and the
 * drain done (or timed out with `forceReboot`); uncordon only what the agent cordoned
 * (`agent-made-unschedulable`); after the process starts, clear needed/in-progress and start no
 * cycle until the grant is withdrawn.
 */
import {
  AGENT_FAILURE_ANNOTATION,
  type AgentFailureReason,
  coordinatorKeys,
  formatAgentFailure,
  type Protocol,
  parseAgentFailure,
} from '@capstan/reboot-protocol';
import type { SourceStatus } from './sources/source.js';

const TRUE = 'true';
const FALSE = 'false';

/** The parts of the agent's Node that decisions read. */
export interface NodeFacts {
  name: string;
  annotations: Readonly<Record<string, string>>;
  labels: Readonly<Record<string, string>>;
  unschedulable: boolean;
  /** `status.nodeInfo.bootID`; empty when not reported. */
  bootID: string;
}

/** A pod on the agent's node, as the drain sees it. */
export interface PodFacts {
  namespace: string;
  name: string;
  uid: string;
  /** Controlled by a DaemonSet: never evicted (its controller would put it straight back). */
  daemonSet: boolean;
  /** A static pod's mirror (`kubernetes.io/config.mirror`): cannot be evicted through the API. */
  mirror: boolean;
  /** Has a deletionTimestamp: evicted (or deleted) already, waiting for it to be gone. */
  terminating: boolean;
}

/** What the agent read from os-release for its labels. */
export interface OsFacts {
  id: string;
  version: string | undefined;
}

/** What the decision sees. */
export interface AgentView {
  /** Milliseconds since the epoch. */
  now: number;
  node: NodeFacts;
  /** The reboot-needed source's latest status, if any arrived. */
  source: SourceStatus | undefined;
  /** Whether the source has ever reported without error (otherwise `reboot-needed` is left as is). */
  sourceKnown: boolean;
  os: OsFacts | undefined;
  /** The pods on the node, listed for this decision; only needed while draining. */
  pods?: readonly PodFacts[];
}

/**
 * What the agent remembers between decisions of one process. Everything else is read from the
 * API; this is only what a process start must forget (a start is what a boot looks like).
 */
export interface AgentMemory {
  /** The start-of-process check (clear needed/in-progress, uncordon what we cordoned) is done. */
  readonly booted: boolean;
  /** A grant seen at start that does not belong to this boot: wait until it is withdrawn. */
  readonly awaitingGrantClear: boolean;
  /** When this process began draining (the drain timeout counts from here). */
  readonly drainStartedAt?: number;
  /** No eviction before this time (backoff after a 429). */
  readonly nextEvictionAt?: number;
  /** Rounds of evictions that were refused in a row (the backoff exponent). */
  readonly blockedRounds: number;
  /** logind accepted the reboot at this time: do nothing more, the machine is going down. */
  readonly rebootRequestedAt?: number;
  /** A failure to report by abandoning the cycle. */
  readonly failure?: { reason: AgentFailureReason; message: string };
}

/** The memory of a freshly started agent. */
export const INITIAL_MEMORY: AgentMemory = Object.freeze({
  booted: false,
  awaitingGrantClear: false,
  blockedRounds: 0,
});

/** Settings the decisions depend on. */
export interface DecisionConfig {
  protocol: Protocol;
  /** Give up draining after this long (0: never). */
  drainTimeoutMs: number;
  /** Reboot even when the drain timed out. */
  forceReboot: boolean;
  /** After an abandoned cycle, wait this long before starting another. */
  failureBackoffMs: number;
  /** How often to look at pods that are terminating. */
  podPollMs: number;
}

/** The agent's states, as reported in `Decision.phase`. */
export type AgentPhase =
  /** Process start: clearing needed/in-progress and uncordoning what it cordoned. */
  | 'Starting'
  /** After start with a grant from an earlier boot: waiting for the coordinator to withdraw it. */
  | 'AwaitingGrantClear'
  /** Reporting what the source says; no usable grant. */
  | 'Idle'
  /** Granted, but an earlier cycle failed recently: waiting out the failure backoff. */
  | 'Backoff'
  /** Granted: marking in-progress and cordoning. */
  | 'Cordoning'
  /** Evicting pods and waiting for them to be gone. */
  | 'Draining'
  /** Asking logind to reboot, or waiting for the machine to go down. */
  | 'Rebooting'
  /** The drain or the reboot failed: uncordoning what it cordoned and reporting why. */
  | 'Abandoning'
  /** The grant went away mid-cycle: uncordoning what it cordoned. */
  | 'Aborting';

/** A merge patch of the node's annotations, labels and cordon (`null` removes). */
export interface NodePatch {
  annotations: Record<string, string | null>;
  labels: Record<string, string | null>;
  unschedulable?: boolean;
}

/** An event to record about the node. */
export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  action: string;
  note: string;
}

/** The one next thing to do. */
export type AgentAction =
  | { kind: 'patch'; patch: NodePatch; event?: EventSpec; failure?: AgentFailureReason }
  | { kind: 'listPods' }
  | { kind: 'evict'; pods: readonly PodFacts[] }
  | { kind: 'reboot'; forced: boolean }
  | { kind: 'wait'; recheckAfterMs?: number };

/** A decision: the state, why, the action, and the memory to keep once the action was carried out. */
export interface Decision {
  phase: AgentPhase;
  why: string;
  action: AgentAction;
  memory: AgentMemory;
}

/** The protocol flags of a node. */
export interface GrantFacts {
  ok: boolean;
  needed: boolean;
  inProgress: boolean;
  agentMade: boolean;
  /** `coordinatorKeys.grantedBootId`, if written. */
  grantedBootId: string | undefined;
  /** ok, and the grant is not fenced to another boot (no granted boot id, or it is the current one). */
  grantForThisBoot: boolean;
  /** ok, and fenced to exactly this boot (proof that no reboot happened since the grant). */
  grantFencedToThisBoot: boolean;
}

/** Reads the protocol flags; anything but the string "true" is false. */
export function grantFacts(node: NodeFacts, protocol: Protocol): GrantFacts {
  const a = node.annotations;
  const k = protocol.annotations;
  const ok = a[k.rebootOk] === TRUE;
  const grantedBootId = a[coordinatorKeys.grantedBootId];
  const fencedHere = grantedBootId !== undefined && grantedBootId !== '' && grantedBootId === node.bootID;
  return {
    ok,
    needed: a[k.rebootNeeded] === TRUE,
    inProgress: a[k.rebootInProgress] === TRUE,
    agentMade: a[k.agentMadeUnschedulable] === TRUE,
    grantedBootId,
    grantForThisBoot: ok && (grantedBootId === undefined || fencedHere),
    grantFencedToThisBoot: ok && fencedHere,
  };
}

/** Splits the node's pods for a drain: which to evict, which are still going, which are skipped. */
export function drainPlan(pods: readonly PodFacts[]): {
  evict: PodFacts[];
  terminating: PodFacts[];
  skipped: PodFacts[];
} {
  const evict: PodFacts[] = [];
  const terminating: PodFacts[] = [];
  const skipped: PodFacts[] = [];
  for (const pod of pods) {
    if (pod.daemonSet || pod.mirror) skipped.push(pod);
    else if (pod.terminating) terminating.push(pod);
    else evict.push(pod);
  }
  return { evict, terminating, skipped };
}

/** A label value Kubernetes accepts (≤ 63 chars, alphanumerics with `-_.` inside), or undefined. */
export function labelValue(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  return raw.length <= 63 && /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/.test(raw) ? raw : undefined;
}

/**
 * The next step. Pure: the same view and memory give the same decision. The returned memory is
 * to be kept only once the action has been carried out (a failed write must not forget a failure).
 */
export function decide(view: AgentView, memory: AgentMemory, config: DecisionConfig): Decision {
  const { node, now } = view;
  const k = config.protocol.annotations;
  const l = config.protocol.labels;
  const f = grantFacts(node, config.protocol);

  if (memory.rebootRequestedAt !== undefined) {
    return {
      phase: 'Rebooting',
      why: 'logind accepted the reboot; waiting for the machine to go down',
      action: { kind: 'wait' },
      memory,
    };
  }

  if (!memory.booted) {
    // A grant fenced to this very boot proves no reboot happened since it: the process restarted
    // mid-cycle (pod restart), so the cycle resumes instead of being thrown away.
    if (f.grantFencedToThisBoot && (f.inProgress || f.needed)) {
      return decide(view, { ...memory, booted: true }, config);
    }
    const cleanup = diff(node, {
      annotations: {
        [k.rebootNeeded]: FALSE,
        [k.rebootInProgress]: FALSE,
        ...(f.agentMade ? { [k.agentMadeUnschedulable]: FALSE } : {}),
      },
      labels: { [l.rebootNeeded]: FALSE },
      ...(f.agentMade && node.unschedulable ? { unschedulable: false } : {}),
    });
    if (cleanup) {
      return {
        phase: 'Starting',
        why: 'agent started: clearing reboot-needed and reboot-in-progress',
        action: {
          kind: 'patch',
          patch: cleanup,
          ...(cleanup.unschedulable === false
            ? {
                event: {
                  type: 'Normal',
                  reason: 'Uncordoned',
                  action: 'Uncordon',
                  note: 'agent started: uncordoned the node it had cordoned',
                },
              }
            : {}),
        },
        memory,
      };
    }
    return decide(view, { ...memory, booted: true, awaitingGrantClear: f.ok }, config);
  }

  if (memory.awaitingGrantClear) {
    if (!f.ok) return decide(view, { ...memory, awaitingGrantClear: false }, config);
    const report = diff(node, reportTarget(view, config.protocol, false));
    if (report) return patchDecision('AwaitingGrantClear', 'reporting status', report, memory);
    return {
      phase: 'AwaitingGrantClear',
      why: `agent started with ${k.rebootOk}=true from before this boot; waiting for the coordinator to withdraw it`,
      action: { kind: 'wait' },
      memory,
    };
  }

  // Report what the source says (the coordinator reads reboot-needed).
  const wanted = view.sourceKnown && view.source ? view.source.rebootNeeded : f.needed;
  const report = diff(node, reportTarget(view, config.protocol, wanted));
  if (report) return patchDecision(f.inProgress ? 'Draining' : 'Idle', 'reporting status', report, memory);

  if (memory.failure) return abandon(view, memory, config, f);

  const granted = f.ok && f.needed && f.grantForThisBoot;
  if (!granted) {
    if (f.inProgress || f.agentMade) {
      const why = !f.ok
        ? `${k.rebootOk} was withdrawn`
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
            : {}),
        },
        memory: resetDrain(memory),
      };
    }
    const why = !f.needed
      ? 'no reboot needed'
      : !f.ok
        ? 'reboot needed; waiting for the grant'
        : `ignoring a stale grant: it belongs to boot ${f.grantedBootId}, this boot is ${node.bootID || '(unknown)'}`;
    return { phase: 'Idle', why, action: { kind: 'wait' }, memory: resetDrain(memory) };
  }

  if (!f.inProgress || !node.unschedulable) {
    if (!f.inProgress) {
      const last = parseAgentFailure(node.annotations[AGENT_FAILURE_ANNOTATION]);
      const left = last ? last.at + config.failureBackoffMs - now : 0;
      if (left > 0) {
        return {
          phase: 'Backoff',
          why: `the last cycle failed (${last?.reason}); starting again in ${Math.ceil(left / 1000)}s`,
          action: { kind: 'wait', recheckAfterMs: left },
          memory,
        };
      }
    }
    // In-progress and the cordon in one write, remembering whether the cordon is ours.
    const agentMade = node.unschedulable ? (f.agentMade ? TRUE : FALSE) : TRUE;
    const patch = diff(node, {
      annotations: {
        [k.rebootInProgress]: TRUE,
        [k.agentMadeUnschedulable]: agentMade,
        ...(f.inProgress ? {} : { [AGENT_FAILURE_ANNOTATION]: null }),
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
      memory: resetDrain(memory),
    };
  }

  // Cordoned and in progress: drain.
  if (memory.drainStartedAt === undefined) return decide(view, { ...memory, drainStartedAt: now }, config);
  if (!view.pods) return { phase: 'Draining', why: 'listing pods', action: { kind: 'listPods' }, memory };
  const plan = drainPlan(view.pods);
  if (plan.evict.length === 0 && plan.terminating.length === 0) {
    return {
      phase: 'Rebooting',
      why: `drained (${plan.skipped.length} DaemonSet or mirror pods left in place); rebooting`,
      action: { kind: 'reboot', forced: false },
      memory: { ...memory, rebootRequestedAt: now },
    };
  }
  const elapsed = now - memory.drainStartedAt;
  if (config.drainTimeoutMs > 0 && elapsed >= config.drainTimeoutMs) {
    const left = [...plan.evict, ...plan.terminating];
    const names = left
      .slice(0, 5)
      .map((p) => `${p.namespace}/${p.name}`)
      .join(', ');
    const message = `drain did not finish within ${config.drainTimeoutMs / 1000}s: ${left.length} pod(s) left (${names}${left.length > 5 ? ', …' : ''})`;
    if (config.forceReboot) {
      return {
        phase: 'Rebooting',
        why: `${message}; rebooting anyway (force-reboot)`,
        action: { kind: 'reboot', forced: true },
        memory: { ...memory, rebootRequestedAt: now },
      };
    }
    return abandon(view, { ...memory, failure: { reason: 'DrainFailed', message } }, config, f);
  }
  const deadline =
    config.drainTimeoutMs > 0
      ? memory.drainStartedAt + config.drainTimeoutMs - now
      : Number.POSITIVE_INFINITY;
  if (plan.evict.length > 0 && now >= (memory.nextEvictionAt ?? 0)) {
    return {
      phase: 'Draining',
      why: `evicting ${plan.evict.length} pod(s)`,
      action: { kind: 'evict', pods: plan.evict },
      memory,
    };
  }
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

function patchDecision(phase: AgentPhase, why: string, patch: NodePatch, memory: AgentMemory): Decision {
  return { phase, why, action: { kind: 'patch', patch }, memory };
}

/** Gives up the cycle: uncordon what we cordoned, clear in-progress, write why. */
function abandon(view: AgentView, memory: AgentMemory, config: DecisionConfig, f: GrantFacts): Decision {
  const failure = memory.failure as NonNullable<AgentMemory['failure']>;
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
        action: failure.reason === 'DrainFailed' ? 'Drain' : 'Reboot',
        note: `${failure.message}; not rebooting${uncordoned ? ', uncordoned the node' : ''}; retrying in ${Math.round(config.failureBackoffMs / 1000)}s while the grant holds`,
      },
    },
    memory: { ...resetDrain(memory), failure: undefined },
  };
}

/** Ends a cycle: in-progress false, and the cordon lifted only if the agent made it. */
function endCycle(node: NodeFacts, f: GrantFacts, protocol: Protocol): NodePatch | undefined {
  const k = protocol.annotations;
  return diff(node, {
    annotations: {
      [k.rebootInProgress]: FALSE,
      ...(f.agentMade ? { [k.agentMadeUnschedulable]: FALSE } : {}),
    },
    labels: {},
    ...(f.agentMade && node.unschedulable ? { unschedulable: false } : {}),
  });
}

function resetDrain(memory: AgentMemory): AgentMemory {
  const { drainStartedAt: _d, nextEvictionAt: _n, ...rest } = memory;
  return { ...rest, blockedRounds: 0 };
}

/** The status annotations and labels the agent maintains, with `reboot-needed` as given. */
function reportTarget(view: AgentView, protocol: Protocol, needed: boolean): NodePatch {
  const k = protocol.annotations;
  const l = protocol.labels;
  const s = view.source;
  const annotations: Record<string, string> = { [k.rebootNeeded]: needed ? TRUE : FALSE };
  const labels: Record<string, string | null> = { [l.rebootNeeded]: needed ? TRUE : FALSE };
  if (s?.status !== undefined) annotations[k.status] = s.status;
  if (s?.newVersion !== undefined) annotations[k.newVersion] = s.newVersion;
  if (s?.lastCheckedTime !== undefined) annotations[k.lastCheckedTime] = BigInt(s.lastCheckedTime).toString();
  if (view.os) {
    labels[l.id] = labelValue(view.os.id) ?? null;
    labels[l.version] = labelValue(view.os.version) ?? null;
  }
  return { annotations, labels };
}

/** The part of `target` that differs from the node, or undefined when nothing does. */
function diff(node: NodeFacts, target: NodePatch): NodePatch | undefined {
  const annotations: Record<string, string | null> = {};
  const labels: Record<string, string | null> = {};
  let changed = false;
  for (const [key, value] of Object.entries(target.annotations)) {
    if ((node.annotations[key] ?? null) !== value) {
      annotations[key] = value;
      changed = true;
    }
  }
  for (const [key, value] of Object.entries(target.labels)) {
    if ((node.labels[key] ?? null) !== value) {
      labels[key] = value;
      changed = true;
    }
  }
  const patch: NodePatch = { annotations, labels };
  if (target.unschedulable !== undefined && target.unschedulable !== node.unschedulable) {
    patch.unschedulable = target.unschedulable;
    changed = true;
  }
  return changed ? patch : undefined;
}
