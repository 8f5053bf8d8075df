/** How a coordinator is configured: from flags in `main`, or directly by an in-process caller. */
import { type Protocol, type ProtocolName, protocolOf } from '@capstan/reboot-protocol';
import type { RebootGroupSpec } from './api/reboot-group.js';
import { DEFAULT_GRANT_TIMEOUT_MS, DEFAULT_GROUP_NAME, type PlannerOptions } from './decide/plan.js';
import type { NotificationOptions } from './notifications/notifier.js';

/** Options of a coordinator. */
export interface CoordinatorOptions {
  /**
   * Which annotation keys to speak: `capstan` (ours, default) or `fluo` (the Flatcar Linux Update
   * Operator's, byte for byte, so FLUO agents can be coordinated).
   */
  protocol?: ProtocolName | Protocol;
  /** Group of the nodes no `RebootGroup` selects; default `default`. */
  defaultGroupName?: string;
  /** Policy of that group when no `RebootGroup` has its name (default: one at a time, order 1000). */
  defaultGroup?: RebootGroupSpec;
  /** Grant timeout of groups that set none; default 30 minutes. */
  defaultGrantTimeoutMs?: number;
  /**
   * Coordinate only nodes with these labels (a label selector string, e.g. `pool=batch`); default
   * all nodes. The Node informer is restricted to it.
   */
  nodeSelector?: string;
  /**
   * Coordinate only the `RebootGroup`s with these labels (a label selector string, e.g.
   * `shard=a`); default all. Coordinators that share a cluster each take their own groups (and,
   * with `nodeSelector`, their own nodes): each plans, gates and writes the status of its groups
   * alone. The RebootGroup informer is restricted to it.
   */
  groupSelector?: string;
  /** Namespace of the grant fence Lease (the coordinator's own namespace). */
  namespace: string;
  /** Name of the grant fence Lease; default `capstan-coordinator-fence`. */
  fenceName?: string;
  /**
   * Longest time between two rounds when nothing happens (windows opening, timeouts are also
   * computed exactly); default 30 s.
   */
  resyncPeriodMs?: number;
  /**
   * Webhooks told of every group's reboots, beside each group's `spec.notifications`, and how
   * bodies are delivered (see `docs/notifications.md`).
   */
  notifications?: NotificationOptions;
  /** Serve FleetLock (off when absent). */
  fleetlock?: FleetLockOptions;
}

/** Options of the FleetLock server. */
export interface FleetLockOptions {
  /** `host:port`, `:port`, `:0` (ephemeral, tests). `0` or empty: off. */
  bindAddress: string;
  /**
   * How long a pre-reboot waits for its grant before answering `failed_lock_semaphore_full` (the
   * client retries); default 5 s.
   */
  waitMs?: number;
  /**
   * Take a request without `client_params.group` as the default group. The protocol makes the
   * group mandatory; default false: such a request is refused with `failed_missing_group`.
   */
  allowMissingGroup?: boolean;
}

/** The planner's options out of the coordinator's. */
export function plannerOptionsOf(options: CoordinatorOptions): PlannerOptions {
  return {
    protocol: protocolOf(options.protocol),
    defaultGroupName: options.defaultGroupName ?? DEFAULT_GROUP_NAME,
    ...(options.defaultGroup ? { defaultGroup: options.defaultGroup } : {}),
    defaultGrantTimeoutMs: options.defaultGrantTimeoutMs ?? DEFAULT_GRANT_TIMEOUT_MS,
    ...(options.resyncPeriodMs !== undefined ? { horizonMs: options.resyncPeriodMs } : {}),
  };
}
