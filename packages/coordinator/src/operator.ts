/**
 * Wiring: the coordinator's controller (and FleetLock server) added to a manager. `main.ts` adds
 * it from flags (`flags.ts`); the end-to-end demo calls {@link addCoordinator} on its own manager.
 */
import {
  annotationsChanged,
  type Controller,
  generationChanged,
  jsonEqual,
  labelsChanged,
  type Manager,
  or,
  type Predicate,
} from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
import { FleetLockServer } from './fleetlock.js';
import { CoordinatorMetrics } from './metrics.js';
import { WebhookDelivery } from './notifications/delivery.js';
import { Notifier } from './notifications/notifier.js';
import type { CoordinatorOptions } from './options.js';
import { coordinatorPermissions } from './permissions.js';
import { CLUSTER_KEY, CoordinatorReconciler } from './reconciler.js';
import { RebootGroupType } from './resources.js';

/** What {@link addCoordinator} added. */
export interface CoordinatorHandle {
  reconciler: CoordinatorReconciler;
  controller: Controller;
  /** Present when FleetLock is on; `fleetlock.ready` resolves with its port. */
  fleetlock?: FleetLockServer;
  metrics: CoordinatorMetrics;
  /** Delivery of webhook notifications (tests wait on it). */
  delivery: WebhookDelivery;
}

// Kubelets rewrite node status every few seconds (heartbeats); only changes the planner reads matter.
const nodeChanged: Predicate<Node> = {
  update: (old, node) => !jsonEqual(relevant(old), relevant(node)),
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
 * Add before `manager.start`. Decisions and deadlines read the manager's clock.
 */
export function addCoordinator(manager: Manager, options: CoordinatorOptions): CoordinatorHandle {
  const metrics = new CoordinatorMetrics(manager.metrics.registry);
  const clock = manager.clock;
  const logger = manager.logger.child({ controller: 'reboot-coordinator' });
  const delivery = new WebhookDelivery({
    ...options.notifications?.delivery,
    count: (result) => metrics.notifications.inc({ result }),
    logger,
  });
  const notifier = new Notifier(delivery, options.notifications);
  // Bodies still queued at shutdown are abandoned, never waited for.
  manager.add(
    {
      name: 'notification-delivery',
      start: (signal) =>
        new Promise<void>((resolve) => {
          const stop = () => {
            delivery.stop();
            resolve();
          };
          if (signal.aborted) stop();
          else signal.addEventListener('abort', stop, { once: true });
        }),
    },
    'always',
  );
  const reconciler = new CoordinatorReconciler(options, {
    notifier,
    client: manager.client,
    informers: manager.cache,
    clock,
    events: manager.events,
    metrics,
    logger,
  });
  const selector = options.nodeSelector?.trim();
  const groupSelector = options.groupSelector?.trim();
  const toCluster = () => [{ name: CLUSTER_KEY }];
  const controller = manager
    .controllerBuilder()
    .named('reboot-coordinator')
    // A status write of our own changes no spec: its echo would only be one more round.
    .watches(RebootGroupType, toCluster, {
      ...(groupSelector ? { labelSelector: groupSelector } : {}),
      predicates: [or(generationChanged, labelsChanged, annotationsChanged)],
    })
    .watches(Node, toCluster, { ...(selector ? { labelSelector: selector } : {}), predicates: [nodeChanged] })
    .withOptions({ maxConcurrentReconciles: 1 })
    .build(reconciler);
  for (const permission of coordinatorPermissions(options)) manager.permissions.add(permission);
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
      { waitMs: options.fleetlock?.waitMs, allowMissingGroup: options.fleetlock?.allowMissingGroup },
    );
    manager.add(fleetlock, 'leader');
  }
  return { reconciler, controller, fleetlock, metrics, delivery };
}
