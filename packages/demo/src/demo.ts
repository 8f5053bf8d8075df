/**
 * The end-to-end demo: a local control plane, two RebootGroups, the reboot coordinator and twelve
 * simulated nodes, each with the real update agent on its own D-Bus. An "update" makes every node
 * need a reboot; the coordinator grants reboots group by group within budget, the agents cordon,
 * drain and reboot through logind, and the nodes come back on the new version.
 */
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { addCoordinator, type RebootGroup, RebootGroupType, resolveBudget } from '@capstan/coordinator';
import { ControlPlane, readManifests } from '@capstan/envtest';
import { protocolOf } from '@capstan/reboot-protocol';
import { Client, Manager } from '@capstan/runtime';
import { DaemonSet, HttpTransport, Namespace, Node } from '@capstan/runtime/client';
import { createLogger } from '@capstan/runtime/manager';
import type { KubeConfig } from '@kubernetes/client-node';
import { agentPodKubeConfig, policiesInForce, serviceAccountKubeConfig } from './identities.js';
import { SimulatedMachine } from './machine.js';
import { FleetObserver, type GroupPlan, type GroupView } from './observer.js';
import { clock, LiveView } from './view.js';
import { createWorkloads, deploymentPods, type GroupWorkload, workloadProblems } from './workloads.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Annotation protocol of coordinator and agents; default `capstan`. */
  protocol?: 'capstan' | 'fluo';
  /** How long each reboot keeps its node down; default 10 s. */
  rebootDownMs?: number;
  /** Give up (and fail) this long after the control plane is up; default 6 minutes. */
  timeoutMs?: number;
  /** Where the view goes; default standard output. */
  out?: NodeJS.WriteStream;
  /** Redraw a table in place (default: when `out` is a terminal) or print one line per change. */
  interactive?: boolean;
  /** Where the coordinator's and agents' JSON logs go. */
  logFile: string;
  /** Stops the demo early (it then fails). */
  signal?: AbortSignal;
}

/** What the demo found. */
export interface DemoSummary {
  /** True when every node rebooted once onto the new version and no group exceeded its budget. */
  ok: boolean;
  nodes: number;
  /** Nodes that booted the new version after exactly one reboot. */
  rebooted: number;
  groups: GroupView[];
  elapsedMs: number;
  /** Why `ok` is false. */
  problems: string[];
}

const FROM_VERSION = '4459.2.0';
const TO_VERSION = '4459.2.1';
const NAMESPACE = 'capstan-system';
const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';

/** The fleet: three control-plane nodes, one at a time first; then nine workers, a quarter at once. */
const GROUPS: Array<Omit<GroupPlan, 'budget'> & { controlPlane: boolean }> = [
  {
    name: 'control-plane',
    order: 0,
    maxUnavailable: 1,
    controlPlane: true,
    nodes: ['control-plane-1', 'control-plane-2', 'control-plane-3'],
  },
  {
    name: 'workers',
    order: 1,
    maxUnavailable: '25%',
    controlPlane: false,
    nodes: Array.from({ length: 9 }, (_, i) => `worker-${i + 1}`),
  },
];

/** Per group a Deployment on its nodes with a PDB; the workers' spreads over nine nodes. */
const WORKLOADS: GroupWorkload[] = GROUPS.map((g) => ({
  name: g.controlPlane ? 'api-gateway' : 'web',
  nodeSelector: { key: CONTROL_PLANE_LABEL, operator: g.controlPlane ? 'Exists' : 'DoesNotExist' },
  replicas: g.nodes.length,
  maxUnavailable: 1,
}));

/** Runs the demo to its end; resolves with the summary (it never throws for a failed run). */
export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const out = options.out ?? process.stdout;
  const protocolName = options.protocol ?? 'capstan';
  const protocol = protocolOf(protocolName);
  const rebootDownMs = options.rebootDownMs ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 6 * 60_000;
  const groups: GroupPlan[] = GROUPS.map(({ controlPlane: _, ...g }) => ({
    ...g,
    budget: resolveBudget(g.maxUnavailable, g.nodes.length),
  }));
  const nodeCount = groups.reduce((n, g) => n + g.nodes.length, 0);
  const view = new LiveView(
    out,
    `Capstan demo: ${nodeCount} nodes, ${groups.length} reboot groups, ${protocolName} protocol`,
    options.interactive ?? Boolean(out.isTTY),
  );
  const logStream = createWriteStream(options.logFile);
  const logger = createLogger({ level: 'info', destination: logStream });
  const faults: string[] = [];
  const onFault = (what: string, err: unknown) => {
    faults.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    logger.error({ err }, what);
  };

  const started = Date.now();
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    view.say(
      'Starting a local cluster (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)...',
    );
    const plane = await ControlPlane.start({ controllerManager: true, scheduler: true, kwok: true });
    cleanups.push(() => plane.stop());
    // A first run builds the binaries for minutes; the timeout is for the demo, so it starts now.
    const deadline = Date.now() + timeoutMs;
    if (options.signal?.aborted) throw new Error('interrupted');
    view.say(`  up at ${plane.server}; kubeconfig ${plane.kubeconfigPath}`);

    const admin = new Client(new HttpTransport(plane.kubeConfig));
    await plane.installCRDs([
      fileURLToPath(import.meta.resolve('@capstan/coordinator/deploy/crds/rebootgroups.yaml')),
    ]);
    await admin.create(Namespace, { metadata: { name: NAMESPACE } });
    // Each operator runs as its service account, with the RBAC and admission policy its deploy/
    // folder publishes; the agent's DaemonSet is there for its pods to belong to.
    const deploy = (operator: string, file: string) =>
      readManifests(fileURLToPath(import.meta.resolve(`@capstan/${operator}/deploy/${file}`)));
    for (const operator of ['coordinator', 'agent']) {
      await plane.createObjects(deploy(operator, 'rbac.yaml'));
      await plane.createObjects(deploy(operator, 'admission-policy.yaml'));
    }
    await plane.createObjects(deploy('agent', 'daemonset.yaml'));
    const daemonSet = await admin.get(DaemonSet, { namespace: NAMESPACE, name: 'capstan-agent' });
    const coordinatorIdentity = await serviceAccountKubeConfig(plane, NAMESPACE, 'capstan-coordinator', (c) =>
      c.list(Node, { limit: 1 }),
    );
    view.say(
      `Identities: the coordinator runs as ${NAMESPACE}/capstan-coordinator and every agent as ${NAMESPACE}/capstan-agent with a token bound to its DaemonSet pod on its node, under the RBAC and admission policies of their deploy/`,
    );
    for (const g of GROUPS) {
      await admin.create(RebootGroupType, {
        metadata: { name: g.name },
        spec: {
          nodeSelector: {
            matchExpressions: [
              { key: CONTROL_PLANE_LABEL, operator: g.controlPlane ? 'Exists' : 'DoesNotExist' },
            ],
          },
          order: g.order,
          maxUnavailable: g.maxUnavailable,
          grantTimeout: '10m',
        },
      } as RebootGroup);
    }
    view.say(
      `Reboot groups: ${groups.map((g) => `${g.name} (order ${g.order}, maxUnavailable ${g.maxUnavailable} = ${g.budget} of ${g.nodes.length})`).join('; ')}`,
    );

    const observer = new FleetObserver(new HttpTransport(plane.kubeConfig), protocol, groups);
    await observer.start();
    cleanups.push(() => observer.stop());
    observer.onTransition((t) => view.transition(t, observer.snapshot().groups));

    // The coordinator, as its Deployment would run it: its own manager and identity, leader election on.
    const coordinatorManager = Manager.create({
      kubeConfig: coordinatorIdentity,
      leaderElection: { id: 'capstan-coordinator', namespace: NAMESPACE },
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      eventSource: 'reboot.capstan.dev/coordinator',
      fieldManager: 'capstan-coordinator',
      logger: logger.child({ component: 'coordinator' }),
    });
    addCoordinator(coordinatorManager, { namespace: NAMESPACE, protocol: protocolName });
    const stopCoordinator = new AbortController();
    const coordinatorDone = coordinatorManager.start(stopCoordinator.signal);
    coordinatorDone.catch((err) => onFault('the coordinator', err));
    cleanups.push(async () => {
      stopCoordinator.abort();
      await coordinatorDone.catch(() => {});
    });
    view.say(
      'Coordinator started; starting 12 nodes, each with its own dbus-daemon, update_engine, logind and agent...',
    );

    const machines: SimulatedMachine[] = [];
    const agentIdentities = new Map<string, KubeConfig>();
    cleanups.push(() => Promise.all(machines.map((m) => m.stop())));
    for (const g of GROUPS) {
      for (const name of g.nodes) {
        const kubeConfig = await agentPodKubeConfig(plane, daemonSet, name);
        agentIdentities.set(name, kubeConfig);
        machines.push(
          await SimulatedMachine.start({
            name,
            labels: {
              'kubernetes.io/hostname': name,
              'kubernetes.io/os': 'linux',
              ...(g.controlPlane ? { [CONTROL_PLANE_LABEL]: '' } : {}),
            },
            version: FROM_VERSION,
            protocol: protocolName,
            rebootDownMs,
            kubeConfig,
            plane,
            logger,
            onFault,
          }),
        );
      }
    }

    const waitUntil = async (what: string, done: () => boolean | Promise<boolean>) => {
      while (!(await done())) {
        if (faults.length > 0) throw new Error(faults[0]);
        if (options.signal?.aborted) throw new Error('interrupted');
        if (Date.now() > deadline) throw new Error(`timed out after ${clock(timeoutMs)} waiting for ${what}`);
        const { nodes, groups: now } = observer.snapshot();
        view.draw(nodes, now, Date.now() - started, `waiting for ${what}`);
        await delay(250);
      }
    };
    await createWorkloads(admin, WORKLOADS);
    view.say(
      `Workloads: ${WORKLOADS.map((w) => `Deployment ${w.name} (${w.replicas} pods, PDB maxUnavailable ${w.maxUnavailable})`).join(', ')} and DaemonSet node-exporter on every node; kube-scheduler places them, kwok runs them`,
    );
    let workloadsDown: string[] = [];
    const workloadsUp = async () => {
      workloadsDown = await workloadProblems(admin, WORKLOADS, nodeCount);
      return workloadsDown.length === 0;
    };
    await waitUntil('every workload pod to run', workloadsUp);
    const podsBefore = await deploymentPods(admin);
    await waitUntil('every agent to report its node', () =>
      observer.snapshot().nodes.every((n) => n.phase === 'up to date' && n.version === FROM_VERSION),
    );
    const [first, second] = machines.map((m) => m.name) as [string, string];
    const refused = await policiesInForce(
      agentIdentities.get(first) as KubeConfig,
      coordinatorIdentity,
      first,
      second,
    );
    view.say(`Admission policies in force: refused ${refused.join('; ')}`);
    view.say(
      `Every agent reports Flatcar ${FROM_VERSION}. An update to ${TO_VERSION} is staged on every node:`,
    );
    observer.resetMost();
    for (const m of machines) m.stageUpdate(TO_VERSION);
    await waitUntil(`every node to reboot onto ${TO_VERSION}`, () =>
      observer.snapshot().nodes.every((n) => n.phase === 'updated' && n.version === TO_VERSION),
    );
    // Evicted pods were rescheduled onto other nodes of their group: everything runs again.
    await waitUntil('every workload pod to run again', workloadsUp).catch(() => {});
    const podsAfter = await deploymentPods(admin);
    const moved = [...podsAfter].filter((name) => !podsBefore.has(name)).length;
    if (workloadsDown.length === 0)
      view.say(
        `Workloads: ${moved} evicted pods were rescheduled onto other nodes; all ${podsAfter.size} Deployment pods and ${nodeCount} DaemonSet pods run again`,
      );
    const final = observer.snapshot();
    view.draw(final.nodes, final.groups, Date.now() - started, 'done');
    return summarize(final.groups, machines, Date.now() - started, [...faults, ...workloadsDown]);
  } catch (err) {
    const problems = [...faults];
    const message = err instanceof Error ? err.message : String(err);
    if (!problems.includes(message)) problems.unshift(message);
    return {
      ok: false,
      nodes: nodeCount,
      rebooted: 0,
      groups: [],
      elapsedMs: Date.now() - started,
      problems,
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await new Promise((resolve) => logStream.end(resolve));
  }
}

/** Checks the run: every node rebooted exactly once onto the new version, no group over budget. */
export function summarize(
  groups: GroupView[],
  machines: SimulatedMachine[],
  elapsedMs: number,
  faults: string[],
): DemoSummary {
  const problems = [...faults];
  let rebooted = 0;
  for (const m of machines) {
    const once = m.rebootRequests === 1 && m.bootIDs.length === 2 && m.versions.at(-1) === TO_VERSION;
    if (once) rebooted += 1;
    else
      problems.push(
        `${m.name}: ${m.rebootRequests} reboot requests, ${m.bootIDs.length} boots, now on ${m.versions.at(-1)}`,
      );
  }
  for (const g of groups) {
    if (g.most > g.budget) problems.push(`${g.name}: ${g.most} nodes disrupted at once, budget ${g.budget}`);
    if (g.most === 0) problems.push(`${g.name}: no node was ever seen disrupted`);
  }
  return { ok: problems.length === 0, nodes: machines.length, rebooted, groups, elapsedMs, problems };
}

/** The summary as printed at the end of the demo. */
export function formatSummary(summary: DemoSummary, logFile: string): string {
  const lines = ['', 'Summary'];
  lines.push(`  nodes rebooted onto ${TO_VERSION}: ${summary.rebooted} of ${summary.nodes}`);
  for (const g of summary.groups) {
    const verdict = g.most <= g.budget ? 'within budget' : 'OVER BUDGET';
    lines.push(`  ${g.name}: most disrupted at once ${g.most}, budget ${g.budget} (${verdict})`);
  }
  lines.push(`  elapsed: ${clock(summary.elapsedMs)}`);
  lines.push(`  coordinator and agent logs: ${logFile}`);
  if (summary.ok) lines.push('  result: OK');
  else lines.push('  result: FAILED', ...summary.problems.map((p) => `    - ${p}`));
  return `${lines.join('\n')}\n`;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
