/**
 * The coordinator's Prometheus metrics, made by the runtime's {@link MetricsFactory} on the
 * manager's registry. Making them is idempotent per registry, so a coordinator restarted in the
 * same process (tests, the demo) reuses the series instead of failing on a duplicate name.
 */
import { type Distribution, MetricsFactory, type Tally } from '@capstan/runtime';
import type { MetricsRegistry } from '@capstan/runtime/manager';

/** The states a node is counted in by `capstan_coordinator_nodes`. */
export const NODE_STATES = [
  'idle',
  'asking',
  'scheduled',
  'granted',
  'afterhooks',
  'returning',
  'failed',
  'setaside',
] as const;

/** One of {@link NODE_STATES}. */
export type NodeState = (typeof NODE_STATES)[number];

/** The metrics the reconciler and the FleetLock server update. */
export class CoordinatorMetrics {
  /** Nodes by group and state (the state before this round's writes). */
  readonly nodes: Tally<'group' | 'state'>;
  /** Reboots granted (annotation and FleetLock alike). */
  readonly grants: Tally<'group'>;
  /** Seconds from grant to release (reboot verified and after-reboot hooks passed). */
  readonly rebootDuration: Distribution<'group'>;
  /** Grants marked failed: not acted on, or the reboot not verified in time. */
  readonly verificationFailures: Tally<'group' | 'reason'>;
  /** Waits for hook annotations that passed the hook timeout, by group and `hooks` (`before`, `after`). */
  readonly hookTimeouts: Tally<'group' | 'hooks'>;
  /** Conditional writes refused because the snapshot was stale (`node`) or another coordinator won the fence (`fence`). */
  readonly conflicts: Tally<'object'>;
  /** Node writes the API server refused (not a conflict), by group and HTTP code: the node is backed off. */
  readonly writeRefusals: Tally<'group' | 'code'>;
  /** Evictions by the coordinator's drain of FleetLock clients' nodes, by result. */
  readonly fleetlockEvictions: Tally<'result'>;
  /** FleetLock requests by endpoint and answer kind (`ok` or the error kind). */
  readonly fleetlockRequests: Tally<'endpoint' | 'result'>;

  /** Notifications by what became of them: sent, failed (retries spent), dropped (queue full). */
  readonly notifications: Tally<'result'>;

  constructor(registry: MetricsRegistry['registry']) {
    const metrics = new MetricsFactory(registry);
    this.nodes = metrics.gauge({
      name: 'capstan_coordinator_nodes',
      help: 'Nodes by reboot group and state',
      labelNames: ['group', 'state'],
    });
    this.grants = metrics.counter({
      name: 'capstan_coordinator_grants_total',
      help: 'Reboots granted',
      labelNames: ['group'],
    });
    this.rebootDuration = metrics.histogram({
      name: 'capstan_coordinator_reboot_duration_seconds',
      help: 'Seconds from a grant to its release (reboot verified, after-reboot hooks passed)',
      labelNames: ['group'],
      buckets: [1, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200],
    });
    this.verificationFailures = metrics.counter({
      name: 'capstan_coordinator_verification_failures_total',
      help: 'Grants marked failed (GrantNotActedOn, RebootNotVerified)',
      labelNames: ['group', 'reason'],
    });
    this.hookTimeouts = metrics.counter({
      name: 'capstan_coordinator_hook_timeouts_total',
      help: 'Nodes that held a slot past the hook timeout: before (sent back to the queue) or after the reboot (marked failed)',
      labelNames: ['group', 'hooks'],
    });
    this.conflicts = metrics.counter({
      name: 'capstan_coordinator_conflicts_total',
      help: 'Conditional writes refused: a stale node snapshot, or the grant fence moved',
      labelNames: ['object'],
    });
    this.writeRefusals = metrics.counter({
      name: 'capstan_coordinator_write_refusals_total',
      help: 'Node writes refused by the API server (422, 403, ...): the node is backed off, the others go on',
      labelNames: ['group', 'code'],
    });
    this.fleetlockEvictions = metrics.counter({
      name: 'capstan_fleetlock_evictions_total',
      help: 'Evictions by the coordinator draining FleetLock clients’ nodes (evicted, gone, blocked, error)',
      labelNames: ['result'],
    });
    this.notifications = metrics.counter({
      name: 'capstan_coordinator_notifications_total',
      help: 'Webhook notifications: sent, failed (every retry refused or timed out), dropped (endpoint queue full)',
      labelNames: ['result'],
    });
    this.fleetlockRequests = metrics.counter({
      name: 'capstan_fleetlock_requests_total',
      help: 'FleetLock requests by endpoint and result',
      labelNames: ['endpoint', 'result'],
    });
  }
}
