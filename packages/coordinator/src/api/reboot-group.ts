/**
 * The `RebootGroup` resource: reboot policy for a set of nodes, as a cluster-scoped custom
 * resource (`reboot.capstan.dev/v1alpha1`). The schema in `deploy/crds/rebootgroups.yaml` refuses
 * what a schema can; {@link validateRebootGroup} reports the rest.
 */
import type { ConditionInput, ObjectMeta } from '@capstan/runtime';
import type * as wire from './generated/reboot-group.js';

// The shapes below are generated from deploy/crds/rebootgroups.yaml (`npm run gen`), so the
// schema the API server enforces and the types the coordinator compiles against cannot drift.

// Its coordinates are published with the protocol (one definition; re-exported here).
export {
  REBOOT_GROUP_API_GROUP,
  REBOOT_GROUP_API_VERSION,
  REBOOT_GROUP_VERSION,
  rebootGroupResource,
} from '@capstan/reboot-protocol';

/** The policy of one group of nodes. */
export type RebootGroupSpec = wire.RebootGroupSpec;

/**
 * A condition as the planner computes it (`metav1.Condition` without its transition time, which
 * the reconciler keeps across rounds with the runtime's `setCondition`).
 */
export type RebootGroupCondition = ConditionInput;

/** Why a node that asks for a reboot is not scheduled yet. */
export type WaitReason = QueueEntry['reason'];

/** One node waiting in a group's queue. */
export type QueueEntry = wire.RebootGroupStatusQueueItem;

/** Observed state of a group, derived from its nodes' annotations alone. */
export type RebootGroupStatus = wire.RebootGroupStatus;

/** Metadata of a `RebootGroup`. */
export type RebootGroupMeta = ObjectMeta;

/** The `RebootGroup` custom resource. */
export type RebootGroup = wire.RebootGroup;
