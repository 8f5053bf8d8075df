/**
 * The coordinator's own bookkeeping on a node. These keys always live under our prefix, in FLUO
 * mode too, so a FLUO agent ignores them. Only the coordinator writes them, except
 * {@link coordinatorKeys.clearFailure}, which an administrator sets to clear a failed node.
 */
import type { AgentFailureReason } from './agent-keys.js';
import { CAPSTAN_PREFIX } from './protocol.js';

/** Annotation keys the coordinator writes for itself. */
export interface CoordinatorKeys {
  /**
   * When the coordinator first saw the node ask (RFC 3339, UTC, milliseconds). Orders the queue
   * (FIFO; ties by node name). Written the first time a node asks, removed when the node is granted
   * or stops asking before its grant.
   */
  readonly requestedAt: string;
  /**
   * When the coordinator granted the reboot (RFC 3339). The grant timeout counts from here.
   * Removed when the node has come back (Ready and uncordoned) after a verified reboot.
   */
  readonly grantedAt: string;
  /**
   * The node's `status.nodeInfo.bootID` at grant time. The reboot is verified only once the node
   * reports a different boot ID: this fences a grant to one boot. Removed with `granted-at`.
   */
  readonly grantedBootId: string;
  /**
   * When the node began waiting for its hook annotations (RFC 3339): written when it is scheduled
   * (before-reboot hooks) and when its reboot is verified (after-reboot hooks); removed at the
   * grant and at the release. The group's `hookTimeout` counts from here.
   */
  readonly hookWaitSince: string;
  /**
   * Written when a node's before-reboot hooks timed out and it was sent back to the queue (RFC
   * 3339); removed at its grant. While present the group reports `Degraded` (`HookTimedOut`).
   */
  readonly hookTimedOutAt: string;
  /**
   * Failure marker, written by the coordinator when a grant was not acted upon, a reboot was not
   * verified within the group's grant timeout, or its after-reboot hooks did not pass within the
   * hook timeout. Value: a reason and the time, e.g. `RebootNotVerified 2025-01-01T00:00:00.000Z`.
   * While present (whatever its value) the node counts against its group's budget and, under
   * `onFailure: Halt`, the group grants nothing new. To clear a failed node, set
   * {@link CoordinatorKeys.clearFailure} on it.
   */
  readonly failed: string;
  /**
   * The one action that clears a failed node (an administrator sets it, any value): the
   * coordinator removes the failure marker, withdraws the grant and its records and hook labels,
   * then removes this key. A node that still asks joins the back of its group's queue.
   */
  readonly clearFailure: string;
  /**
   * A failed node set aside by its group's failure policy (`onFailure: SetAside`): value the
   * failure's reason and time. The node is out of its group's budget and queue (never granted)
   * until cleared with {@link CoordinatorKeys.clearFailure}; its agent keeps it cordoned.
   */
  readonly setAside: string;
  /**
   * Since when a rebooted node, released, has been Ready and schedulable (RFC 3339): its slot
   * frees once it has stayed so for the group's `settleTime`. Removed at completion.
   */
  readonly settlingSince: string;
  /** When the node last completed a coordinated reboot (RFC 3339); informational. */
  readonly rebootedAt: string;
}

/** Our bookkeeping keys, under `reboot.capstan.dev/`. */
export const coordinatorKeys: CoordinatorKeys = Object.freeze({
  requestedAt: `${CAPSTAN_PREFIX}requested-at`,
  grantedAt: `${CAPSTAN_PREFIX}granted-at`,
  grantedBootId: `${CAPSTAN_PREFIX}granted-boot-id`,
  hookWaitSince: `${CAPSTAN_PREFIX}hook-wait-since`,
  hookTimedOutAt: `${CAPSTAN_PREFIX}hook-timed-out-at`,
  failed: `${CAPSTAN_PREFIX}reboot-failed`,
  clearFailure: `${CAPSTAN_PREFIX}clear-failure`,
  setAside: `${CAPSTAN_PREFIX}set-aside`,
  settlingSince: `${CAPSTAN_PREFIX}settling-since`,
  rebootedAt: `${CAPSTAN_PREFIX}rebooted-at`,
});

/**
 * Reasons the coordinator writes into the failure marker: its own, or the agent's failure when
 * the agent wrote one after the grant (it drained or tried to reboot and gave up).
 */
export type FailureReason =
  | 'GrantNotActedOn'
  | 'RebootNotVerified'
  | 'AfterRebootHooksTimedOut'
  | AgentFailureReason;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Formats a time (ms since the epoch) as the coordinator writes it: RFC 3339 in UTC with ms. */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Parses a timestamp annotation written by {@link formatTimestamp} (any RFC 3339 time is
 * accepted). Returns `undefined` for anything else: garbage never throws.
 */
export function parseTimestamp(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.length > 40 || !RFC3339.test(raw)) return undefined;
  const ms = Date.parse(raw);
  return Number.isFinite(ms) ? ms : undefined;
}
