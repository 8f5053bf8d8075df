/**
 * FleetLock clients (Zincati) have no agent to cordon and drain their node: the coordinator's
 * FleetLock server does it while the node holds its slot (scheduled), and says so with
 * {@link FLEETLOCK_DRAINED_KEY}. For the planner that is one more before-reboot check, on
 * FleetLock nodes only: such a node is granted only once drained, the check is cleared with the
 * group's hooks, and its wait is bounded by the same `hookTimeout`.
 */
import { CAPSTAN_PREFIX } from '@capstan/reboot-protocol';
import type { GroupPolicy } from './group-policy.js';
import type { NodeDraft } from './node-state.js';

/** Marks a node's request as a FleetLock client's; the value is the client's id. */
export const FLEETLOCK_HOLDER_KEY = `${CAPSTAN_PREFIX}fleetlock-id`;
/** `"true"` once the coordinator has cordoned and drained a FleetLock client's scheduled node. */
export const FLEETLOCK_DRAINED_KEY = `${CAPSTAN_PREFIX}fleetlock-drained`;
/** `"true"` while the node is cordoned by the coordinator (it uncordons only what it cordoned). */
export const FLEETLOCK_CORDONED_KEY = `${CAPSTAN_PREFIX}fleetlock-cordoned`;

/** The before-reboot checks of a node: its group's hooks, and the drain for a FleetLock client. */
export function beforeHooksOf(draft: NodeDraft, group: GroupPolicy): readonly string[] {
  if (draft.annotations[FLEETLOCK_HOLDER_KEY] === undefined) return group.beforeHooks;
  return [...group.beforeHooks, FLEETLOCK_DRAINED_KEY];
}
