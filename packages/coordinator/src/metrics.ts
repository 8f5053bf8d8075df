/**
 * The coordinator's Prometheus metrics, registered on the manager's registry. Registration is
 * idempotent per registry, so a coordinator restarted in the same process (tests, the demo) reuses
 * the series instead of failing on a duplicate name.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The states a node is counted in by `capstan_coordinator_nodes`. */
export const NODE_STATES = [
  'idle',
  'asking',
  'scheduled',
  'granted',
  'afterhooks',
  'returning',
  'failed',
] as const;

/** One of {@link NODE_STATES}. */
export type NodeState = (typeof NODE_STATES)[number];

function single<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/** The metrics the reconciler and the FleetLock server update. */
export class CoordinatorMetrics {
  /** Nodes by group and state (the state before this round's writes). */
  readonly nodes: Gauge<'group' | 'state'>;
  /** Reboots granted (annotation and FleetLock alike). */
  readonly grants: Counter<'group'>;
  /** Seconds from grant to release (reboot verified and after-reboot hooks passed). */
  readonly rebootDuration: Histogram<'group'>;
  /** Grants marked failed: not acted on, or the reboot not verified in time. */
  readonly verificationFailures: Counter<'group' | 'reason'>;
  /** Conditional writes refused because the snapshot was stale (`node`) or another coordinator won the fence (`fence`). */
  readonly conflicts: Counter<'object'>;
  /** FleetLock requests by endpoint and answer kind (`ok` or the error kind). */
  readonly fleetlockRequests: Counter<'endpoint' | 'result'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.nodes = single(
      registry,
      'capstan_coordinator_nodes',
      () =>
        new Gauge({
          name: 'capstan_coordinator_nodes',
          help: 'Nodes by reboot group and state',
          labelNames: ['group', 'state'],
          registers,
        }),
    );
    this.grants = single(
      registry,
      'capstan_coordinator_grants_total',
      () =>
        new Counter({
          name: 'capstan_coordinator_grants_total',
          help: 'Reboots granted',
          labelNames: ['group'],
          registers,
        }),
    );
    this.rebootDuration = single(
      registry,
      'capstan_coordinator_reboot_duration_seconds',
      () =>
        new Histogram({
          name: 'capstan_coordinator_reboot_duration_seconds',
          help: 'Seconds from a grant to its release (reboot verified, after-reboot hooks passed)',
          labelNames: ['group'],
          buckets: [1, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200],
          registers,
        }),
    );
    this.verificationFailures = single(
      registry,
      'capstan_coordinator_verification_failures_total',
      () =>
        new Counter({
          name: 'capstan_coordinator_verification_failures_total',
          help: 'Grants marked failed (GrantNotActedOn, RebootNotVerified)',
          labelNames: ['group', 'reason'],
          registers,
        }),
    );
    this.conflicts = single(
      registry,
      'capstan_coordinator_conflicts_total',
      () =>
        new Counter({
          name: 'capstan_coordinator_conflicts_total',
          help: 'Conditional writes refused: a stale node snapshot, or the grant fence moved',
          labelNames: ['object'],
          registers,
        }),
    );
    this.fleetlockRequests = single(
      registry,
      'capstan_fleetlock_requests_total',
      () =>
        new Counter({
          name: 'capstan_fleetlock_requests_total',
          help: 'FleetLock requests by endpoint and result',
          labelNames: ['endpoint', 'result'],
          registers,
        }),
    );
  }
}
