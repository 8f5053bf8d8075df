/**
 * The `RebootStack` resource (`operator.capstan.dev/v1alpha1`, cluster-scoped): which version of
 * the reboot coordinator and the update agent to run, how, under which protocol, and which policy
 * defaults the version operator owns. The schema in `deploy/crds/rebootstacks.yaml` refuses what a
 * schema can; `validateStack` reports the rest as conditions.
 */

import type { ProtocolName } from '@capstan/reboot-protocol';
import { type Condition, defineResource, type KubeObject } from '@capstan/runtime';
import type * as wire from './generated/reboot-stack.js';

/** API group of the version operator's resources. */
export const OPERATOR_API_GROUP = 'operator.capstan.dev';

// The spec's shapes are generated from deploy/crds/rebootstacks.yaml (`npm run gen`), so the schema
// the API server enforces and the types the operator compiles against cannot drift. The status
// has no schema there (the operator alone writes it; unknown fields are kept), so its types are
// written here.

/** Command-line flags of a component, by name without the dashes (`grant-timeout: "1h"`). */
export type FlagValues = Record<string, string>;

/** A toleration, as in `core/v1.Toleration`. */
export type Toleration = wire.RebootStackSpecAgentTolerationsItem;

/** Container resources, as in `core/v1.ResourceRequirements`. */
export type Resources = wire.RebootStackSpecCoordinatorResources;

/** How the coordinator Deployment runs. */
export type CoordinatorSettings = wire.RebootStackSpecCoordinator;

/** How the agent DaemonSet runs. */
export type AgentSettings = wire.RebootStackSpecAgent;

/** What happens to the created objects when the RebootStack is deleted. */
export type DeletionPolicy = NonNullable<RebootStackSpec['deletionPolicy']>;

/** The desired stack. */
export type RebootStackSpec = wire.RebootStackSpec;

/** One component's rollout as last observed. */
export interface ComponentStatus {
  /** The version the component's objects were last applied at. */
  version?: string;
  /** `Pending`, `RollingOut`, `Complete` or `Blocked` (waiting on the coordinator). */
  rollout: 'Pending' | 'RollingOut' | 'Complete' | 'Blocked';
  /** Pods on the applied version that are available, and how many are wanted. */
  updated: number;
  available: number;
  desired: number;
  /** When the rollout at `version` was first seen complete (RFC 3339). */
  completedAt?: string;
}

/** The state of a protocol migration in progress (absent when none). */
export interface MigrationStatus {
  from: ProtocolName;
  to: ProtocolName;
  phase: MigrationPhase;
  /** RebootGroups this migration paused (and will resume); groups paused by someone else stay paused. */
  pausedGroups: string[];
  /** What the current step waits for (with its counts), while it waits. */
  waiting?: string;
  /** Since when (RFC 3339) the step has waited on exactly {@link MigrationStatus.waiting}. */
  waitingSince?: string;
}

/** The steps of a protocol migration, in order. */
export type MigrationPhase =
  | 'Pausing'
  | 'StoppingCoordinator'
  | 'SwitchingCoordinator'
  | 'SwitchingAgents'
  | 'Resuming';

/** Observed state. */
export interface RebootStackStatus {
  observedGeneration?: number;
  /** The version every component runs, once all rolled out at it. */
  observedVersion?: string;
  /** The protocol every component speaks, once switched. */
  observedProtocol?: ProtocolName;
  coordinator?: ComponentStatus;
  agent?: ComponentStatus;
  migration?: MigrationStatus;
  conditions?: Condition[];
}

/** A RebootStack: the coordinator and agent the version operator keeps deployed. */
export interface RebootStack extends KubeObject {
  spec: RebootStackSpec;
  status?: RebootStackStatus;
}

/** The RebootStack kind, for the client, the cache and the builder. */
export const RebootStackType = defineResource<RebootStack>({
  group: OPERATOR_API_GROUP,
  version: 'v1alpha1',
  kind: 'RebootStack',
  plural: 'rebootstacks',
  namespaced: false,
});

/**
 * The version operator's name wherever the cluster sees it: the field manager of every apply it
 * makes, the value of {@link stackLabels.managedBy}, its Lease, ServiceAccount, roles and command.
 */
export const VERSION_OPERATOR_MANAGER = 'capstan-version-operator';

/** Labels on every object the operator applies: who manages it, for which stack, which part. */
export const stackLabels = Object.freeze({
  /** Its value is {@link VERSION_OPERATOR_MANAGER}. */
  managedBy: 'app.kubernetes.io/managed-by',
  stack: `${OPERATOR_API_GROUP}/stack`,
  component: `${OPERATOR_API_GROUP}/component`,
  version: `${OPERATOR_API_GROUP}/version`,
});

/** The pod template annotation naming the protocol a workload's pods speak. */
export const PROTOCOL_ANNOTATION = `${OPERATOR_API_GROUP}/protocol`;

/** The finalizer that lets the operator remove what it created before the stack goes. */
export const STACK_FINALIZER = `${OPERATOR_API_GROUP}/cleanup`;

/** The two components a stack runs, in upgrade order. */
export const COMPONENTS = ['coordinator', 'agent'] as const;

/** One of {@link COMPONENTS}. */
export type ComponentName = (typeof COMPONENTS)[number];
