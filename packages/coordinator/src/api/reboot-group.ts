/**
 * The `RebootGroup` resource: reboot policy for a set of nodes, as a cluster-scoped custom
 * resource (`reboot.capstan.dev/v1alpha1`). The schema in `deploy/crds/rebootgroups.yaml` refuses
 * what a schema can; {@link validateRebootGroup} reports the rest.
 */
import type { ConditionInput } from '@capstan/runtime';
import type { LabelSelectorSpec } from '@capstan/runtime/client';
import type { RebootWindow } from './reboot-window.js';

// Its coordinates are published with the protocol (one definition; re-exported here).
export {
  REBOOT_GROUP_API_GROUP,
  REBOOT_GROUP_API_VERSION,
  REBOOT_GROUP_VERSION,
  rebootGroupResource,
} from '@capstan/reboot-protocol';

/** The policy of one group of nodes. */
export interface RebootGroupSpec {
  /** Nodes in the group. Empty matches every node. A node matched by several groups is a finding. */
  nodeSelector?: LabelSelectorSpec;
  /**
   * The group's budget: how many of its nodes may be in flight or otherwise unavailable at once.
   * A count (≥ 1) or a percentage of the group's nodes (`"25%"`, rounded down, at least 1).
   * Default 1.
   */
  maxUnavailable?: number | string;
  /**
   * Lower goes first: a group schedules and grants only while every group with a lower order has
   * no node asking or in flight. Groups with the same order do not wait for each other. Default 0.
   */
  order?: number;
  /** When new reboots may start. Empty or absent: always. In-flight reboots may finish outside. */
  windows?: RebootWindow[];
  /** Annotations other controllers set to `"true"` on a scheduled node before it is granted. */
  beforeRebootAnnotations?: string[];
  /** Annotations other controllers set to `"true"` on a rebooted node before it is released. */
  afterRebootAnnotations?: string[];
  /**
   * How long a granted node has to reboot and come back verified (`"30m"`, `"1h30m"`); then it is
   * marked failed and halts its group. Default: the coordinator's option (30m).
   */
  grantTimeout?: string;
  /** No new schedules or grants while true; in-flight nodes finish. */
  paused?: boolean;
}

/**
 * A condition as the planner computes it (`metav1.Condition` without its transition time, which
 * the reconciler keeps across rounds with the runtime's `setCondition`).
 */
export type RebootGroupCondition = ConditionInput;

/** Why a node that asks for a reboot is not scheduled yet. */
export type WaitReason =
  | 'WaitingForBeforeRebootAnnotations'
  | 'BudgetExhausted'
  | 'OutsideWindow'
  | 'GroupPaused'
  | 'GroupHalted'
  | 'InvalidGroup'
  | 'WaitingForLowerOrder'
  | 'NoBootID'
  | 'RebootInProgressWithoutGrant'
  | 'WritesRefused';

/** One node waiting in a group's queue. */
export interface QueueEntry {
  node: string;
  /** When the coordinator first saw it ask (RFC 3339). */
  requestedAt: string;
  reason: WaitReason;
  message: string;
}

/** Observed state of a group, derived from its nodes' annotations alone. */
export interface RebootGroupStatus {
  /** Nodes in the group. */
  nodes: number;
  /** Nodes asking: `reboot-needed` true and not paused. */
  asking: number;
  /** Nodes scheduled, granted, rebooting, not yet released or back, or marked failed. */
  inFlight: number;
  /** Nodes counted against the budget: in flight or otherwise unavailable (|D|). */
  unavailable: number;
  /** The budget resolved against the group's size. */
  maxUnavailable: number;
  /** Nodes that completed at least one coordinated reboot (carry `rebooted-at`). */
  rebooted: number;
  /** Nodes carrying the failure marker. */
  failed: number;
  /** Whether a window is open now (true when the group has no windows). */
  windowOpen: boolean;
  /** Asking nodes not yet scheduled, first served first, with why each waits. */
  queue: QueueEntry[];
  conditions: RebootGroupCondition[];
  observedGeneration?: number;
}

/** Metadata of a `RebootGroup` (structurally a runtime `ObjectMeta`). */
export interface RebootGroupMeta {
  name?: string;
  resourceVersion?: string;
  generation?: number;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

/** The `RebootGroup` custom resource (structurally a runtime `KubeObject`). */
export interface RebootGroup {
  apiVersion?: string;
  kind?: string;
  metadata: RebootGroupMeta;
  spec: RebootGroupSpec;
  status?: RebootGroupStatus;
  [field: string]: unknown;
}
