/**
 * Things the planner noticed that a human should hear about. The reconciler turns them into
 * conditions, events and metrics; they never change what the planner writes on the next round.
 */

/** What was noticed. */
export type FindingKind =
  /** An annotation or label held a value the protocol does not allow; read as unset. */
  | 'GarbageValue'
  /** A group's spec is unusable; the group schedules and grants nothing. */
  | 'InvalidGroup'
  /** Two groups share a name; the later one is ignored. */
  | 'DuplicateGroup'
  /** A node matches several groups' selectors; it joins the first by (order, name). */
  | 'NodeInSeveralGroups'
  /** A grant was not acted upon or its reboot not verified in time; the node is marked failed. */
  | 'GrantTimedOut'
  /**
   * A node held a slot past the hook timeout: waiting for its before-reboot annotations (sent
   * back to the queue) or its after-reboot annotations (marked failed).
   */
  | 'HookTimedOut'
  /** A failed node set aside by its group's failure policy: out of the group until cleared. */
  | 'NodeSetAside'
  /** A node carries the failure marker; its group grants nothing new. */
  | 'NodeFailed'
  /** `reboot-ok` was set without our grant records (another coordinator, an admin); adopted. */
  | 'GrantAdopted'
  /** A rebooted node has not come back (Ready, uncordoned) within the grant timeout. */
  | 'ReturnOverdue'
  /** The agent says a reboot is in progress but the node holds no grant. */
  | 'RebootInProgressWithoutGrant'
  /** A node asks but reports no boot ID, so a grant could not be fenced; it waits. */
  | 'MissingBootID'
  /** The API server refuses writes to a node (422, 403, ...); it is backed off, the rest goes on. */
  | 'WritesRefused';

/** One finding. */
export interface Finding {
  kind: FindingKind;
  /** Warning: needs attention; Info: worth an event. */
  severity: 'Warning' | 'Info';
  node?: string;
  group?: string;
  /** The annotation or label concerned, for `GarbageValue`. */
  key?: string;
  message: string;
}
