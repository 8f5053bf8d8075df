/**
 * Act 3, update: an OS update is staged on every node. The coordinator Deployment's and the agent
 * DaemonSet's pods are kwok pods (no process), so the real coordinator runs beside them (its own
 * Manager, as the ServiceAccount the version operator created, leader election on) and the real
 * agents beside the DaemonSet's pods, one per node, each as that node's DaemonSet pod (a token
 * bound to it) on its private D-Bus with a test update_engine and logind. The agents ask, the
 * coordinator grants within budget, nodes drain (real pods evicted and rescheduled), reboot and
 * come back on the new version.
 */
import { addCoordinator, resolveBudget } from '@capstan/coordinator';
import type { ControlPlane } from '@capstan/envtest';
import { type ProtocolName, protocolOf } from '@capstan/reboot-protocol';
import { Client, Manager } from '@capstan/runtime';
import { DaemonSet, HttpTransport, Node } from '@capstan/runtime/client';
import type { ActContext } from './act.js';
import { agentPodKubeConfig, policiesInForce, serviceAccountKubeConfig } from './identities.js';
import { type InstalledGroup, OPERATORS_NAMESPACE } from './install-act.js';
import { SimulatedMachine } from './machine.js';
import { FleetObserver, type GroupPlan, type GroupView } from './observer.js';
import { createWorkloads, deploymentPods, type GroupWorkload, workloadProblems } from './workloads.js';

/** The OS versions before and after the update. */
export const FROM_VERSION = '4459.2.0';
export const TO_VERSION = '4459.2.1';
/** The label the default groups select control-plane nodes by. */
export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';

/** A node of the fleet, as act 1 (or `--only reboot`) created it. */
export interface FleetNode {
  name: string;
  controlPlane: boolean;
}

/** What one machine went through (the part of a {@link SimulatedMachine} the summary checks). */
export interface MachineHistory {
  name: string;
  rebootRequests: number;
  bootIDs: readonly string[];
  versions: readonly string[];
}

/** What act 3 found, for the summary. */
export interface RebootFacts {
  machines: MachineHistory[];
  groups: GroupView[];
  /** Deployment pods evicted and replaced; what still does not run at the end. */
  moved: number;
  workloadsDown: string[];
}

/** Options of {@link updateFleet}. */
export interface UpdatePlan {
  protocol: ProtocolName;
  rebootDownMs: number;
}

/** The groups' plans: which nodes each default group selects (control-plane label or not), and its budget. */
export function groupPlans(groups: InstalledGroup[], nodes: FleetNode[]): GroupPlan[] {
  return groups.map((g) => {
    const members = nodes.filter((n) => n.controlPlane === (g.name === 'control-plane')).map((n) => n.name);
    return { ...g, budget: resolveBudget(g.maxUnavailable, members.length), nodes: members };
  });
}

/** Runs act 3 on `plane`; see the file comment. */
export async function updateFleet(
  ctx: ActContext,
  plane: ControlPlane,
  fleet: FleetNode[],
  installed: InstalledGroup[],
  plan: UpdatePlan,
): Promise<RebootFacts> {
  const { view, logger } = ctx;
  const protocol = protocolOf(plan.protocol);
  const groups = groupPlans(installed, fleet);
  view.say(
    `Act 3: update. Reboot groups: ${groups.map((g) => `${g.name} (order ${g.order}, maxUnavailable ${g.maxUnavailable} = ${g.budget} of ${g.nodes.length})`).join('; ')}`,
  );
  const admin = new Client(new HttpTransport(plane.kubeConfig));
  const daemonSet = await admin.get(DaemonSet, { namespace: OPERATORS_NAMESPACE, name: 'capstan-agent' });
  const coordinatorIdentity = await serviceAccountKubeConfig(
    plane,
    OPERATORS_NAMESPACE,
    'capstan-coordinator',
    (c) => c.list(Node, { limit: 1 }),
  );
  const observer = new FleetObserver(new HttpTransport(plane.kubeConfig), protocol, groups);
  await observer.start();
  ctx.onEnd(() => observer.stop());
  observer.onTransition((t) => view.transition(t, observer.snapshot().groups));

  const coordinatorManager = Manager.create({
    kubeConfig: coordinatorIdentity,
    leaderElection: { id: 'capstan-coordinator', namespace: OPERATORS_NAMESPACE },
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    eventSource: 'reboot.capstan.dev/coordinator',
    fieldManager: 'capstan-coordinator',
    logger: logger.child({ component: 'coordinator' }),
  });
  addCoordinator(coordinatorManager, { namespace: OPERATORS_NAMESPACE, protocol: plan.protocol });
  const stopCoordinator = new AbortController();
  const coordinatorDone = coordinatorManager.start(stopCoordinator.signal);
  coordinatorDone.catch((err) => ctx.fault('the coordinator', err));
  ctx.onEnd(async () => {
    stopCoordinator.abort();
    await coordinatorDone.catch(() => {});
  });
  view.say(
    `  the coordinator runs beside its Deployment's kwok pods as ${OPERATORS_NAMESPACE}/capstan-coordinator; on each of the ${fleet.length} nodes an agent runs beside its DaemonSet pod, as that pod (bound token), on its own dbus-daemon with update_engine and logind`,
  );

  const machines: SimulatedMachine[] = [];
  ctx.onEnd(() => Promise.all(machines.map((m) => m.stop())));
  for (const node of fleet) {
    ctx.checkInterrupt();
    machines.push(
      await SimulatedMachine.start({
        name: node.name,
        labels: {},
        adopt: true,
        version: FROM_VERSION,
        protocol: plan.protocol,
        rebootDownMs: plan.rebootDownMs,
        identity: () => agentPodKubeConfig(plane, daemonSet, node.name),
        plane,
        logger,
        onFault: (what, err) => ctx.fault(what, err),
      }),
    );
  }
  const tick = () => {
    const { nodes, groups: now } = observer.snapshot();
    view.draw(nodes, now, ctx.elapsed(), 'updating');
  };

  const workloads: GroupWorkload[] = groups.map((g) => ({
    name: g.name === 'control-plane' ? 'api-gateway' : 'web',
    nodeSelector: {
      key: CONTROL_PLANE_LABEL,
      operator: g.name === 'control-plane' ? 'Exists' : 'DoesNotExist',
    },
    replicas: g.nodes.length,
    maxUnavailable: 1,
  }));
  await createWorkloads(admin, workloads);
  view.say(
    `  workloads: ${workloads.map((w) => `Deployment ${w.name} (${w.replicas} pods, PDB maxUnavailable ${w.maxUnavailable})`).join(', ')} and DaemonSet node-exporter; kube-scheduler places them, kwok runs them`,
  );
  let workloadsDown: string[] = [];
  const workloadsUp = async () => {
    workloadsDown = await workloadProblems(admin, workloads, fleet.length);
    return workloadsDown.length === 0;
  };
  await ctx.waitUntil('every workload pod to run', workloadsUp, tick);
  const podsBefore = await deploymentPods(admin);
  await ctx.waitUntil(
    'every agent to report its node',
    () => observer.snapshot().nodes.every((n) => n.phase === 'up to date' && n.version === FROM_VERSION),
    tick,
  );
  const [first, second] = machines as [SimulatedMachine, SimulatedMachine];
  const refused = await policiesInForce(first.agentKubeConfig, coordinatorIdentity, first.name, second.name);
  view.say(`  admission policies in force: refused ${refused.join('; ')}`);
  view.say(
    `  every agent reports Flatcar ${FROM_VERSION}; an update to ${TO_VERSION} is staged on every node:`,
  );
  observer.resetMost();
  for (const m of machines) m.stageUpdate(TO_VERSION);
  await ctx.waitUntil(
    `every node to reboot onto ${TO_VERSION}`,
    () => observer.snapshot().nodes.every((n) => n.phase === 'updated' && n.version === TO_VERSION),
    tick,
  );
  // Evicted pods were rescheduled: everything runs again. Bounded: what still does not run is
  // reported in the summary, not waited on to the deadline.
  await ctx
    .waitUntil('every workload pod to run again', workloadsUp, tick, Date.now() + 30_000)
    .catch(() => {});
  const moved = [...(await deploymentPods(admin))].filter((name) => !podsBefore.has(name)).length;
  const final = observer.snapshot();
  view.draw(final.nodes, final.groups, ctx.elapsed(), 'done');
  view.settle();
  if (workloadsDown.length === 0)
    view.say(
      `  workloads: ${moved} evicted pods were rescheduled; every Deployment and DaemonSet pod runs again`,
    );
  return {
    machines: machines.map((m) => ({
      name: m.name,
      rebootRequests: m.rebootRequests,
      bootIDs: [...m.bootIDs],
      versions: [...m.versions],
    })),
    groups: final.groups,
    moved,
    workloadsDown,
  };
}
