/**
 * What the demo shows and checks, worked out independently of the coordinator: each node's phase
 * from its annotations and status, and each group's disruption (nodes granted, draining, cordoned
 * or not Ready) after every watch event. Watch events of one kind arrive in resourceVersion order,
 * so every count is the count of a state the cluster really passed through.
 */
import { coordinatorKeys, type Protocol } from '@capstan/reboot-protocol';
import { SharedInformer } from '@capstan/runtime/cache';
import { type ApiTransport, type Node, Node as NodeType } from '@capstan/runtime/client';

/** Where a node is in its update, as the live view names it. */
export type NodePhase =
  | 'joining'
  | 'up to date'
  | 'needs reboot'
  | 'granted'
  | 'draining'
  | 'rebooting'
  | 'back up'
  | 'updated';

/** One reboot group as the demo planned it. */
export interface GroupPlan {
  name: string;
  order: number;
  /** `maxUnavailable` as written in the RebootGroup. */
  maxUnavailable: number | string;
  /** The budget it resolves to for this group's size. */
  budget: number;
  nodes: string[];
}

/** A node's line in the live view. */
export interface NodeView {
  name: string;
  group: string;
  phase: NodePhase;
  /** OS version label the agent reports. */
  version: string;
  /** Boots seen since the demo started (1 = never rebooted). */
  boots: number;
  /** Counts against its group's budget. */
  disrupted: boolean;
}

/** A group's line in the live view. */
export interface GroupView extends GroupPlan {
  /** Nodes disrupted now. */
  current: number;
  /** Most nodes disrupted at once so far. */
  most: number;
}

/** A phase change, for the event log. */
export interface Transition {
  atMs: number;
  node: string;
  from: NodePhase | undefined;
  to: NodePhase;
}

interface Tracked {
  node: Node;
  bootIDs: string[];
}

/** Watches nodes through a runtime SharedInformer and keeps the demo's view of them. */
export class FleetObserver {
  private readonly informer: SharedInformer<Node>;
  private readonly tracked = new Map<string, Tracked>();
  private readonly phases = new Map<string, NodePhase>();
  private readonly most = new Map<string, number>();
  private readonly groupOf = new Map<string, string>();
  private readonly listeners: Array<(t: Transition) => void> = [];
  private readonly startedAt = Date.now();

  constructor(
    transport: ApiTransport,
    private readonly protocol: Protocol,
    private readonly groups: GroupPlan[],
  ) {
    for (const g of groups) for (const n of g.nodes) this.groupOf.set(n, g.name);
    this.informer = new SharedInformer(transport, NodeType, {});
    this.informer.addEventHandler({
      onAdd: (node) => this.observe(node),
      onUpdate: (_old, node) => this.observe(node),
    });
  }

  /** Starts watching and waits for the first list. */
  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync(30_000);
  }

  async stop(): Promise<void> {
    await this.informer.stop();
  }

  /** Starts counting each group's most disrupted nodes afresh (after the fleet has joined). */
  resetMost(): void {
    for (const g of this.snapshot().groups) this.most.set(g.name, g.current);
  }

  /** Calls `listener` on every phase change. */
  onTransition(listener: (t: Transition) => void): void {
    this.listeners.push(listener);
  }

  /** The nodes, in plan order, and the groups with their current and highest disruption. */
  snapshot(): { nodes: NodeView[]; groups: GroupView[] } {
    const nodes = this.groups.flatMap((g) => g.nodes.map((name) => this.view(name, g.name)));
    const groups = this.groups.map((g) => ({
      ...g,
      current: nodes.filter((n) => n.group === g.name && n.disrupted).length,
      most: this.most.get(g.name) ?? 0,
    }));
    return { nodes, groups };
  }

  private observe(node: Node): void {
    const name = node.metadata.name ?? '';
    const group = this.groupOf.get(name);
    if (!group) return;
    const previous = this.tracked.get(name);
    const bootID = node.status?.nodeInfo?.bootID ?? '';
    const bootIDs = previous?.bootIDs ?? [];
    if (bootID && bootIDs.at(-1) !== bootID) bootIDs.push(bootID);
    this.tracked.set(name, { node, bootIDs });

    const current = this.groups
      .find((g) => g.name === group)
      ?.nodes.filter((n) => this.view(n, group).disrupted).length;
    this.most.set(group, Math.max(this.most.get(group) ?? 0, current ?? 0));

    const phase = this.view(name, group).phase;
    const from = this.phases.get(name);
    if (from !== phase) {
      this.phases.set(name, phase);
      const t: Transition = { atMs: Date.now() - this.startedAt, node: name, from, to: phase };
      for (const listener of this.listeners) listener(t);
    }
  }

  private view(name: string, group: string): NodeView {
    const tracked = this.tracked.get(name);
    const node = tracked?.node;
    const a = node?.metadata.annotations ?? {};
    const k = this.protocol.annotations;
    const ready = node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    const needed = a[k.rebootNeeded] === 'true';
    const granted = a[k.rebootOk] === 'true';
    const inProgress = a[k.rebootInProgress] === 'true';
    const cordoned = node?.spec?.unschedulable === true;
    const boots = tracked?.bootIDs.length ?? 0;
    const bootID = node?.status?.nodeInfo?.bootID ?? '';
    const grantedBoot = a[coordinatorKeys.grantedBootId];
    // Up on a newer boot than the one granted: the reboot happened, the grant is not withdrawn yet.
    const backUp = ready && (inProgress || granted) && !!grantedBoot && grantedBoot !== bootID;
    let phase: NodePhase;
    // A kwok node exists (with its first boot ID) a moment before it is Ready: still joining.
    if (boots === 0 || (boots === 1 && !ready && !granted && !inProgress)) phase = 'joining';
    else if (!ready) phase = 'rebooting';
    else if (backUp) phase = 'back up';
    else if (inProgress) phase = 'draining';
    else if (granted && needed) phase = 'granted';
    else if (needed) phase = 'needs reboot';
    else if (boots > 1) phase = granted || cordoned ? 'back up' : 'updated';
    else phase = 'up to date';
    return {
      name,
      group,
      phase,
      version: node?.metadata.labels?.[this.protocol.labels.version] ?? '',
      boots,
      disrupted: !!node && (!ready || inProgress || granted || cordoned),
    };
  }
}
