/**
 * A fleet in envtest for the rollout row and its test: kwok nodes in reboot groups (control plane
 * first, then workers, budgets 10–25%), a PDB-bound workload on them, the fleet agent
 * (`@capstan/agent`'s `FleetAgent`: the agent's own reconciler for every node, rebooting through
 * envtest's `rebootNode`) and an observer that watches every node and keeps, per group, the most
 * nodes in flight at once. The coordinator is the caller's: in-process in the test, its own
 * process in the bench.
 */
import { FleetAgent } from '@capstan/agent';
import type { ControlPlane, NodeSpec } from '@capstan/envtest';
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Manager } from '@capstan/runtime';
import { SharedInformer } from '@capstan/runtime/cache';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { FleetTimeline } from './fleet-timeline.js';

const P = capstanProtocol;
/** The label every node of a fleet carries, with the fleet's name. */
export const FLEET_LABEL = 'bench.capstan.dev/fleet';
const GROUP_LABEL = 'bench.capstan.dev/group';
const CONTROL_PLANE = 'node-role.kubernetes.io/control-plane';

/** One reboot group of a fleet: its name, nodes, budget (nodes at once) and order. */
export interface FleetGroup {
  name: string;
  nodes: string[];
  maxUnavailable: string;
  budget: number;
  order: number;
}

/** A fleet's layout. */
export interface FleetLayout {
  name: string;
  groups: FleetGroup[];
  specs: NodeSpec[];
}

/** The budgets the worker groups cycle through, as RebootGroup's `maxUnavailable` writes them. */
export const FLEET_BUDGETS = ['10%', '15%', '20%', '25%'];

/** What `maxUnavailable: "p%"` allows of `n` nodes: rounded down, at least one (the coordinator's rule). */
export const budgetOf = (percent: string, n: number): number =>
  Math.max(1, Math.floor((n * Number.parseInt(percent, 10)) / 100));

/**
 * `nodes` nodes in `groups` groups: the first holds the control plane (3 nodes, one at a time,
 * order 0), the others share the rest evenly, budgets cycling through `budgets`, in order after it.
 */
export function fleetLayout(
  name: string,
  nodes: number,
  groups: number,
  budgets: readonly string[] = FLEET_BUDGETS,
): FleetLayout {
  if (groups < 2 || nodes < groups + 3)
    throw new RangeError(`a fleet needs ≥ 2 groups and more nodes than groups`);
  const out: FleetGroup[] = [{ name: `${name}-cp`, nodes: [], maxUnavailable: '1', budget: 1, order: 0 }];
  for (let g = 1; g < groups; g++) {
    const percent = budgets[(g - 1) % budgets.length] as string;
    out.push({ name: `${name}-g${g}`, nodes: [], maxUnavailable: percent, budget: 0, order: g });
  }
  const specs: NodeSpec[] = [];
  for (let i = 0; i < nodes; i++) {
    const group = i < 3 ? (out[0] as FleetGroup) : (out[1 + ((i - 3) % (groups - 1))] as FleetGroup);
    const node = `${name}-${i}`;
    group.nodes.push(node);
    const labels: Record<string, string> = { [FLEET_LABEL]: name, [GROUP_LABEL]: group.name };
    if (group.order === 0) labels[CONTROL_PLANE] = '';
    specs.push({ name: node, labels });
  }
  for (const g of out) if (g.order > 0) g.budget = budgetOf(g.maxUnavailable, g.nodes.length);
  return { name, groups: out, specs };
}

/** The RebootGroups of a layout (kind `RebootGroup`, `reboot.capstan.dev/v1alpha1`). */
export function rebootGroups(layout: FleetLayout, grantTimeout = '30m'): object[] {
  return layout.groups.map((g) => ({
    apiVersion: 'reboot.capstan.dev/v1alpha1',
    kind: 'RebootGroup',
    metadata: { name: g.name },
    spec: {
      nodeSelector: { matchLabels: { [GROUP_LABEL]: g.name } },
      order: g.order,
      maxUnavailable: g.maxUnavailable.endsWith('%') ? g.maxUnavailable : Number(g.maxUnavailable),
      grantTimeout,
    },
  }));
}

/**
 * The ideal of a rollout bound by the budgets alone: groups one after another, each in
 * ⌈nodes / budget⌉ rounds of one reboot each.
 */
export const idealMs = (layout: FleetLayout, rebootMs: number): number =>
  layout.groups.reduce((sum, g) => sum + Math.ceil(g.nodes.length / g.budget) * rebootMs, 0);

/** A node in flight: granted, rebooting, cordoned or not Ready (what a budget counts). */
function inFlight(node: Node): boolean {
  const a = node.metadata.annotations ?? {};
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  return (
    a[P.annotations.rebootOk] === 'true' ||
    a[coordinatorKeys.grantedBootId] !== undefined ||
    a[P.annotations.rebootInProgress] === 'true' ||
    node.spec?.unschedulable === true ||
    !ready
  );
}

/** Watches a fleet's nodes: the most in flight per group, and when every node has rebooted. */
export class FleetObserver {
  /** The most nodes of each group in flight at once. */
  readonly most = new Map<string, number>();
  /** When (ms since the epoch) each group first had a node in flight, and last had none. */
  readonly firstIn = new Map<string, number>();
  readonly lastOut = new Map<string, number>();
  /** Each node's grant, reboot and release, for where a round's time goes. */
  readonly timeline = new FleetTimeline();
  private readonly flying = new Map<string, Set<string>>();
  private readonly bootAtStart = new Map<string, string>();
  private readonly done = new Set<string>();
  private readonly informer: SharedInformer<Node>;
  private finished: (() => void) | undefined;

  constructor(
    transport: HttpTransport,
    private readonly layout: FleetLayout,
  ) {
    this.informer = new SharedInformer(transport, Node, { labelSelector: `${FLEET_LABEL}=${layout.name}` });
    this.informer.addEventHandler({ onAdd: (n) => this.see(n), onUpdate: (_, n) => this.see(n) });
  }

  /** Starts watching and records each node's boot ID. */
  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync(120_000);
    for (const n of this.informer.store.list()) this.bootAtStart.set(n.metadata.name ?? '', bootOf(n));
  }

  /** Resolves once every node runs a new boot and is out of flight, its reboot-needed cleared. */
  rolledOut(): Promise<void> {
    return new Promise((resolve) => {
      this.finished = resolve;
      this.check();
    });
  }

  async stop(): Promise<void> {
    await this.informer.stop();
  }

  private see(node: Node): void {
    const name = node.metadata.name ?? '';
    const group = node.metadata.labels?.[GROUP_LABEL] ?? '';
    const set = this.flying.get(group) ?? new Set<string>();
    this.flying.set(group, set);
    if (inFlight(node)) {
      set.add(name);
      if (!this.firstIn.has(group) && this.bootAtStart.size > 0) this.firstIn.set(group, Date.now());
    } else if (set.delete(name) && set.size === 0) this.lastOut.set(group, Date.now());
    this.most.set(group, Math.max(this.most.get(group) ?? 0, set.size));
    const start = this.bootAtStart.get(name);
    const asks = node.metadata.annotations?.[P.annotations.rebootNeeded] === 'true';
    if (start !== undefined && bootOf(node) !== start && !inFlight(node) && !asks) this.done.add(name);
    if (start !== undefined) {
      const a = node.metadata.annotations ?? {};
      this.timeline.see(name, group, {
        granted: a[P.annotations.rebootOk] === 'true' || a[coordinatorKeys.grantedBootId] !== undefined,
        ready: node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
        rebooted: bootOf(node) !== start,
        out: !inFlight(node),
        cordoned: node.spec?.unschedulable === true,
        asking: asks || a[P.annotations.rebootInProgress] === 'true',
        rebootOk: a[P.annotations.rebootOk] === 'true',
      });
    }
    this.check();
  }

  private check(): void {
    if (this.finished && this.done.size === this.layout.specs.length) this.finished();
  }
}

const bootOf = (n: Node): string => String(n.status?.nodeInfo?.bootID ?? '');

/** The fleet's group names, in the order the coordinator rolls them. */
export const groupOrder = (layout: FleetLayout): string[] =>
  [...layout.groups].sort((a, b) => a.order - b.order).map((g) => g.name);

/** Where a rollout's time goes outside its rounds (the first grant, the group changes), in words. */
export function rolloutEdges(observer: FleetObserver, layout: FleetLayout, startMs: number): string {
  const order = groupOrder(layout);
  const { firstGrantMs, changesMs } = observer.timeline.edges(order, startMs);
  const sum = changesMs.reduce((a, b) => a + b, 0) / 1000;
  const first = firstGrantMs === undefined ? '?' : (firstGrantMs / 1000).toFixed(1);
  return (
    `first grant ${first} s after every node asked; ${changesMs.length} group changes (last done to ` +
    `next grant) took ${sum.toFixed(1)} s in all, the longest ${(Math.max(0, ...changesMs) / 1000).toFixed(1)} s`
  );
}

/** The fleet agent, in a manager of its own (admin credentials), rebooting through the plane. */
export function startFleetAgent(
  plane: ControlPlane,
  layout: FleetLayout,
  rebootMs: number,
): { agent: FleetAgent; stop: () => Promise<void> } {
  const manager = Manager.create({
    kubeConfig: plane.kubeConfig,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logLevel: 'silent',
    eventSource: 'reboot.capstan.dev/agent',
    fieldManager: 'capstan-agent',
  });
  const agent = new FleetAgent(manager, {
    labelSelector: `${FLEET_LABEL}=${layout.name}`,
    // A reboot looks whether its node is back at envtest's default (25 ms, only while it comes
    // back: a few reads each), a drain whether its evicted pods are gone every 100 ms: kwok
    // deletes them at once, and the budget-bound ideal counts neither.
    reboot: (name) => plane.rebootNode(name, { downMs: rebootMs, timeoutMs: 600_000 }),
    config: { drainTimeoutMs: 10 * 60_000, podPollMs: 100 },
  });
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  return {
    agent,
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}

/**
 * A Deployment of `replicas` pods spread over the fleet and a PodDisruptionBudget that lets one
 * in ten go at once: the drains evict through it, and the scheduler places the evicted elsewhere.
 */
export async function pdbWorkload(
  plane: ControlPlane,
  namespace: string,
  layout: FleetLayout,
  replicas: number,
): Promise<void> {
  const labels = { app: `${layout.name}-web` };
  await plane.createObjects([
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: labels.app, namespace },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            nodeSelector: { [FLEET_LABEL]: layout.name },
            topologySpreadConstraints: [
              {
                maxSkew: 1,
                topologyKey: 'kubernetes.io/hostname',
                whenUnsatisfiable: 'ScheduleAnyway',
                labelSelector: { matchLabels: labels },
              },
            ],
            containers: [{ name: 'web', image: 'registry.invalid/web:1' }],
          },
        },
      },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: labels.app, namespace },
      spec: { maxUnavailable: '10%', selector: { matchLabels: labels } },
    },
  ]);
}
