/**
 * The agent's API: what its decisions read (its node, its pods, the reboot-needed source,
 * os-release), what it remembers within one process, and what it decides (a phase, a reason, one
 * action). The protocol keys are `@capstan/reboot-protocol`'s.
 */
import type { AgentFailureReason, Protocol } from '@capstan/reboot-protocol';
import type { PodDrainFacts } from '@capstan/runtime';
import type { SourceStatus } from '../sources/source.js';

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
/** What the agent knows about a pod of its node (the runtime's drain facts). */
export type PodFacts = PodDrainFacts;

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
  /** Why the source cannot tell right now, while it cannot (reported on the node). */
  sourceError?: string;
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
  /** A failure to report: a failed drain abandons the cycle, a refused reboot is retried. */
  readonly failure?: { reason: AgentFailureReason; message: string };
  /** Reboots refused in a row in this cycle (the exponent of the retry backoff). */
  readonly rebootFailures?: number;
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
  /** Quarantine after this many reboot cycles within `quarantineWindowMs` (0 or absent: never). */
  quarantineAfter?: number;
  /** The window reboot cycles are counted in for the quarantine. */
  quarantineWindowMs?: number;
}

/** The agent's states, as reported in `Decision.phase`. */
export type AgentPhase =
  /** Process start, before the reboot-needed source's first answer: nothing is decided yet. */
  | 'AwaitingSource'
  /** Process start: clearing needed/in-progress and uncordoning what it cordoned. */
  | 'Starting'
  /** After start with a grant from an earlier boot: waiting for the coordinator to withdraw it. */
  | 'AwaitingGrantClear'
  /** Reporting what the source says; no usable grant. */
  | 'Idle'
  /**
   * Granted, but an earlier cycle failed recently (waiting out the failure backoff), or the
   * reboot was refused (the node kept cordoned and drained until the retry).
   */
  | 'Backoff'
  /** Granted: marking in-progress and cordoning. */
  | 'Cordoning'
  /** Evicting pods and waiting for them to be gone. */
  | 'Draining'
  /** Asking logind to reboot, or waiting for the machine to go down. */
  | 'Rebooting'
  /** The drain failed: uncordoning what it cordoned and reporting why. */
  | 'Abandoning'
  /** The reboot was refused: reporting why, keeping the node cordoned and drained. */
  | 'RebootRefused'
  /** The grant went away mid-cycle: uncordoning what it cordoned. */
  | 'Aborting'
  /** Set aside by the coordinator (a failed node): kept cordoned until an administrator clears it. */
  | 'SetAside';

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
