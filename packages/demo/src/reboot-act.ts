/**
 * Act 3, update: an OS update is staged on every node. The coordinator Deployment's and the agent
 * DaemonSet's pods are kwok pods (no process), so the real coordinator runs beside them (its own
 * Manager, as the ServiceAccount the version operator created, leader election on) and the real
 * agents beside the DaemonSet's pods, one per node, each as that node's DaemonSet pod (a token
 * bound to it) on its private D-Bus with a test update_engine and logind. The agents ask, the
 * coordinator grants within budget, nodes drain (real pods evicted and rescheduled), reboot and
 * come back on the new version.
 */
import { addCoordinator, COORDINATOR_MANAGER, resolveBudget } from '@capstan/coordinator';
import type { ControlPlane } from '@capstan/envtest';
import { type ProtocolName, protocolOf } from '@capstan/reboot-protocol';
import { Client, type KubeConfig, Manager } from '@capstan/runtime';
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
  const { view } = ctx;
  const groups = groupPlans(installed, fleet);
  view.say(
    `Act 3: update. Reboot groups: ${groups.map((g) => `${g.name} (order ${g.order}, maxUnavailable ${g.maxUnavailable} = ${g.budget} of ${g.nodes.length})`).join('; ')}`,
  );
  const admin = new Client(new HttpTransport(plane.kubeConfig));
  const observer = await observeFleet(ctx, plane, plan.protocol, groups);
  const coordinatorIdentity = await startCoordinator(ctx, plane, plan.protocol, fleet.length);
  const machines = await startAgents(ctx, plane, fleet, plan);
  const tick = () => {
    const { nodes, groups: now } = observer.snapshot();
    view.draw(nodes, now, ctx.elapsed(), 'updating');
  };
  const workloads = await placeWorkloads(ctx, admin, groups);
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
  await showPolicies(ctx, machines, coordinatorIdentity);
  await rollUpdate(ctx, observer, machines, tick);
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
  return { machines: machines.map(historyOf), groups: final.groups, moved, workloadsDown };
}

/** Scene: the observer that reads the fleet's nodes and groups for the view, until the run ends. */
async function observeFleet(
  ctx: ActContext,
  plane: ControlPlane,
  protocol: ProtocolName,
  groups: GroupPlan[],
): Promise<FleetObserver> {
  const observer = new FleetObserver(new HttpTransport(plane.kubeConfig), protocolOf(protocol), groups);
  await observer.start();
  ctx.onEnd(() => observer.stop());
  observer.onTransition((t) => ctx.view.transition(t, observer.snapshot().groups));
  return observer;
}

/**
 * Scene: the real coordinator, beside its Deployment's kwok pods, as the ServiceAccount the version
 * operator created (so its RBAC is what is tested). Answers that identity's kubeconfig.
 */
async function startCoordinator(
  ctx: ActContext,
  plane: ControlPlane,
  protocol: ProtocolName,
  fleetSize: number,
): Promise<KubeConfig> {
  const identity = await serviceAccountKubeConfig(plane, OPERATORS_NAMESPACE, COORDINATOR_MANAGER, (c) =>
    c.list(Node, { limit: 1 }),
  );
  const manager = Manager.create({
    kubeConfig: identity,
    leaderElection: { id: COORDINATOR_MANAGER, namespace: OPERATORS_NAMESPACE },
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    eventSource: 'reboot.capstan.dev/coordinator',
    fieldManager: COORDINATOR_MANAGER,
    logger: ctx.logger.child({ component: 'coordinator' }),
  });
  addCoordinator(manager, { namespace: OPERATORS_NAMESPACE, protocol });
  ctx.runManager('the coordinator', manager);
  ctx.view.say(
    `  the coordinator runs beside its Deployment's kwok pods as ${OPERATORS_NAMESPACE}/capstan-coordinator; on each of the ${fleetSize} nodes an agent runs beside its DaemonSet pod, as that pod (bound token), on its own dbus-daemon with update_engine and logind`,
  );
  return identity;
}

/** Scene: one simulated machine per node, its real agent posing as the node's DaemonSet pod. */
async function startAgents(
  ctx: ActContext,
  plane: ControlPlane,
  fleet: FleetNode[],
  plan: UpdatePlan,
): Promise<SimulatedMachine[]> {
  const admin = new Client(new HttpTransport(plane.kubeConfig));
  const daemonSet = await admin.get(DaemonSet, { namespace: OPERATORS_NAMESPACE, name: 'capstan-agent' });
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
        logger: ctx.logger,
        onFault: (what, err) => ctx.fault(what, err),
      }),
    );
  }
  return machines;
}

/** Scene: a Deployment per group (with its PDB) and a DaemonSet, so drains have pods to move. */
async function placeWorkloads(ctx: ActContext, admin: Client, groups: GroupPlan[]): Promise<GroupWorkload[]> {
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
  ctx.view.say(
    `  workloads: ${workloads.map((w) => `Deployment ${w.name} (${w.replicas} pods, PDB maxUnavailable ${w.maxUnavailable})`).join(', ')} and DaemonSet node-exporter; kube-scheduler places them, kwok runs them`,
  );
  return workloads;
}

/** Scene: the admission policies refuse an agent labelling another node, and the coordinator cordoning. */
async function showPolicies(
  ctx: ActContext,
  machines: SimulatedMachine[],
  coordinatorIdentity: KubeConfig,
): Promise<void> {
  const [first, second] = machines as [SimulatedMachine, SimulatedMachine];
  const refused = await policiesInForce(first.agentKubeConfig, coordinatorIdentity, first.name, second.name);
  ctx.view.say(`  admission policies in force: refused ${refused.join('; ')}`);
}

/** Scene: the update is staged on every node; the agents and the coordinator reboot them all onto it. */
async function rollUpdate(
  ctx: ActContext,
  observer: FleetObserver,
  machines: SimulatedMachine[],
  tick: () => void,
): Promise<void> {
  ctx.view.say(
    `  every agent reports Flatcar ${FROM_VERSION}; an update to ${TO_VERSION} is staged on every node:`,
  );
  observer.resetMost();
  for (const m of machines) m.stageUpdate(TO_VERSION);
  await ctx.waitUntil(
    `every node to reboot onto ${TO_VERSION}`,
    () => observer.snapshot().nodes.every((n) => n.phase === 'updated' && n.version === TO_VERSION),
    tick,
  );
}

/** What the summary keeps of a machine. */
function historyOf(m: SimulatedMachine): MachineHistory {
  return {
    name: m.name,
    rebootRequests: m.rebootRequests,
    bootIDs: [...m.bootIDs],
    versions: [...m.versions],
  };
}
