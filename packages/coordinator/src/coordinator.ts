/**
 * Wiring: the coordinator's controller (and FleetLock server) added to a manager, and the
 * coordinator's command-line flags. `main.ts` uses both; the end-to-end demo calls
 * {@link addCoordinator} on its own manager.
 */
import {
  type Clock,
  type Controller,
  formatDuration,
  type Manager,
  Node,
  type ParseOptionsConfig,
  type Predicate,
  parseDuration,
  realClock,
} from '@capstan/runtime';
import { maxUnavailableProblem } from './api/budget.js';
import type { RebootGroupSpec } from './api/reboot-group.js';
import { FleetLockServer } from './fleetlock.js';
import { CoordinatorMetrics } from './metrics.js';
import type { CoordinatorOptions } from './options.js';
import { DEFAULT_GRANT_TIMEOUT_MS, DEFAULT_GROUP_NAME, DEFAULT_GROUP_SPEC } from './planner/plan.js';
import { CLUSTER_KEY, CoordinatorReconciler } from './reconciler.js';
import { RebootGroupType } from './resources.js';

/** What {@link addCoordinator} added. */
export interface CoordinatorHandle {
  reconciler: CoordinatorReconciler;
  controller: Controller;
  /** Present when FleetLock is on; `fleetlock.ready` resolves with its port. */
  fleetlock?: FleetLockServer;
  metrics: CoordinatorMetrics;
}

// Kubelets rewrite node status every few seconds (heartbeats); only changes the planner reads matter.
const nodeChanged: Predicate<Node> = {
  update: (old, node) => JSON.stringify(relevant(old)) !== JSON.stringify(relevant(node)),
};

function relevant(node: Node): unknown {
  return [
    node.metadata.annotations,
    node.metadata.labels,
    node.spec?.unschedulable,
    node.status?.nodeInfo?.bootID,
    node.status?.nodeInfo?.machineID,
    (node.status?.conditions ?? []).map((c) => [c.type, c.status]),
  ];
}

/**
 * Adds the reboot coordinator to a manager: one controller reconciling the single key `cluster`
 * on every relevant Node or RebootGroup change (leader-only, like every controller), and the
 * FleetLock server as a leader-only runnable when `options.fleetlock` names a bind address.
 * Add before `manager.start`. Pass `extras.clock` when the manager runs on a clock of its own.
 */
export function addCoordinator(
  manager: Manager,
  options: CoordinatorOptions,
  extras: { clock?: Clock } = {},
): CoordinatorHandle {
  const metrics = new CoordinatorMetrics(manager.metrics.registry);
  // The manager keeps its clock to itself: pass the same one (tests on a ManualClock).
  const clock = extras.clock ?? realClock;
  const reconciler = new CoordinatorReconciler(options, {
    client: manager.client,
    clock,
    events: manager.events,
    metrics,
    logger: manager.logger.child({ controller: 'reboot-coordinator' }),
  });
  const selector = options.nodeSelector?.trim();
  const toCluster = () => [{ name: CLUSTER_KEY }];
  const controller = manager
    .controllerBuilder()
    .named('reboot-coordinator')
    .watches(RebootGroupType, toCluster)
    .watches(Node, toCluster, { ...(selector ? { labelSelector: selector } : {}), predicates: [nodeChanged] })
    .withOptions({ maxConcurrentReconciles: 1 })
    .build(reconciler);
  let fleetlock: FleetLockServer | undefined;
  const bind = options.fleetlock?.bindAddress?.trim();
  if (bind && bind !== '0') {
    fleetlock = new FleetLockServer(
      bind,
      {
        client: manager.client,
        planner: reconciler.planner,
        clock,
        metrics,
        logger: manager.logger.child({ component: 'fleetlock' }),
      },
      { waitMs: options.fleetlock?.waitMs },
    );
    manager.add(fleetlock, 'leader');
  }
  return { reconciler, controller, fleetlock, metrics };
}

type Command = Parameters<NonNullable<ParseOptionsConfig['extend']>>[0];

/** The coordinator's own flags, as commander names them. */
export interface CoordinatorFlags {
  protocol: string;
  defaultGroupName: string;
  defaultMaxUnavailable: string;
  defaultOrder: string;
  defaultGrantTimeout: string;
  defaultBeforeRebootAnnotation: string[];
  defaultAfterRebootAnnotation: string[];
  nodeSelector?: string;
  fenceLeaseName: string;
  resyncPeriod: string;
  fleetlockBindAddress: string;
  fleetlockWait: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds the coordinator's flags to a command (use as `parseStandardOptions`' `extend`). */
export function addCoordinatorFlags(command: Command): void {
  command
    .option('--protocol <name>', 'annotation protocol: capstan or fluo (FLUO-compatible keys)', 'capstan')
    .option('--default-group-name <name>', 'reboot group of nodes no RebootGroup selects', DEFAULT_GROUP_NAME)
    .option(
      '--default-max-unavailable <n|pct>',
      'budget of the default group: a count or a percentage like 25%',
      String(DEFAULT_GROUP_SPEC.maxUnavailable),
    )
    .option(
      '--default-order <n>',
      'order of the default group (lower goes first)',
      String(DEFAULT_GROUP_SPEC.order),
    )
    .option(
      '--default-grant-timeout <duration>',
      'grant timeout of groups that set none',
      formatDuration(DEFAULT_GRANT_TIMEOUT_MS),
    )
    .option(
      '--default-before-reboot-annotation <key>',
      'before-reboot check of the default group (repeatable)',
      collect,
      [],
    )
    .option(
      '--default-after-reboot-annotation <key>',
      'after-reboot check of the default group (repeatable)',
      collect,
      [],
    )
    .option('--node-selector <selector>', 'coordinate only nodes matching this label selector')
    .option(
      '--fence-lease-name <name>',
      'name of the grant fence Lease in the coordinator namespace',
      'capstan-coordinator-fence',
    )
    .option('--resync-period <duration>', 'longest time between two planning rounds', '30s')
    .option('--fleetlock-bind-address <address>', 'serve FleetLock here, e.g. :9090 ("0": off)', '0')
    .option(
      '--fleetlock-wait <duration>',
      'how long a pre-reboot waits for its grant before answering',
      '5s',
    );
}

/**
 * Turns the flags into {@link CoordinatorOptions}.
 * @param namespace the coordinator's namespace (the fence Lease lives there).
 * @throws Error naming the flag when a value is unusable.
 */
export function coordinatorOptionsFromFlags(flags: CoordinatorFlags, namespace: string): CoordinatorOptions {
  if (flags.protocol !== 'capstan' && flags.protocol !== 'fluo') {
    throw new Error(`--protocol must be capstan or fluo, got "${flags.protocol}"`);
  }
  const raw = flags.defaultMaxUnavailable.trim();
  const maxUnavailable: number | string = /^\d+$/.test(raw) ? Number(raw) : raw;
  const problem = maxUnavailableProblem(maxUnavailable);
  if (problem) throw new Error(`--default-max-unavailable ${problem}`);
  const order = Number(flags.defaultOrder);
  if (!Number.isSafeInteger(order))
    throw new Error(`--default-order must be an integer, got "${flags.defaultOrder}"`);
  const grantTimeoutMs = parseDuration(flags.defaultGrantTimeout);
  if (!(grantTimeoutMs > 0)) throw new Error('--default-grant-timeout must be positive');
  const defaultGroup: RebootGroupSpec = { maxUnavailable, order };
  if (flags.defaultBeforeRebootAnnotation.length > 0)
    defaultGroup.beforeRebootAnnotations = flags.defaultBeforeRebootAnnotation;
  if (flags.defaultAfterRebootAnnotation.length > 0)
    defaultGroup.afterRebootAnnotations = flags.defaultAfterRebootAnnotation;
  return {
    protocol: flags.protocol,
    defaultGroupName: flags.defaultGroupName,
    defaultGroup,
    defaultGrantTimeoutMs: grantTimeoutMs,
    ...(flags.nodeSelector ? { nodeSelector: flags.nodeSelector } : {}),
    namespace,
    fenceName: flags.fenceLeaseName,
    resyncPeriodMs: parseDuration(flags.resyncPeriod),
    fleetlock: { bindAddress: flags.fleetlockBindAddress, waitMs: parseDuration(flags.fleetlockWait) },
  };
}
