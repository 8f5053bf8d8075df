/**
 * The planner as a service to the parts of the coordinator that need its answers: the reconciler
 * (which applies plans) and the FleetLock server (which asks which group a node is in and why it
 * waits). It reads the world through the client and plans with the coordinator's options; it
 * writes nothing.
 */
import type { Protocol } from '@capstan/reboot-protocol';
import type { Client } from '@capstan/runtime';
import { metadataOnly, Node } from '@capstan/runtime/client';
import type { QueueEntry, RebootGroup } from './api/reboot-group.js';
import type { DisruptionFacts } from './decide/disruption-budgets.js';
import { type FreshRead, freshRead } from './decide/fresh-groups.js';
import type { NamedRebootGroup } from './decide/group-policy.js';
import type { GroupGateFacts } from './decide/health-gates.js';
import { type NodeSnapshot, snapshotNode } from './decide/node-snapshot.js';
import { groupOfNode, groupsOfRound, type Plan, type PlannerOptions, plan } from './decide/plan.js';
import type { RefusedNode } from './decide/queue.js';
import { readDisruptionFacts } from './disruption-facts.js';
import { readGateFacts } from './gate-facts.js';
import type { InformerSource } from './gates/condition-reads.js';
import { type CoordinatorOptions, plannerOptionsOf } from './options.js';
import { RebootGroupType } from './resources.js';
import { ListMemo } from './same-objects.js';

/** Nodes read as metadata only: names, labels, annotations and resourceVersions. */
const NodeMetadata = metadataOnly(Node);

/** What the coordinator plans from. */
export interface World {
  nodes: readonly Node[];
  groups: readonly RebootGroup[];
  /** The groups' health gates as read with the world (no entry: no gates). */
  gates?: Readonly<Record<string, GroupGateFacts>>;
  /** Pods and PodDisruptionBudgets, read when a group is `pdbAware`. */
  disruption?: DisruptionFacts;
}

/** Reads the world; by default from the manager's cache. Tests pass stale snapshots. */
export type WorldReader = () => Promise<World> | World;

/** Reads the world and plans it with the coordinator's options. */
export class PlannerService {
  /** The keys the coordinator speaks. */
  readonly protocol: Protocol;
  /** The group of nodes no RebootGroup selects. */
  readonly defaultGroupName: string;
  private readonly options: PlannerOptions;
  private readonly nodeSelector: string | undefined;
  private readonly groupSelector: string | undefined;
  private readonly round = new ListMemo<RebootGroup, ReturnType<typeof groupsOfRound>>((groups) =>
    groupsOfRound({ groups: namedGroups({ nodes: [], groups }), options: this.options }, []),
  );

  /**
   * Cached (frozen) nodes' snapshots: a cached Node never changes (a change is a new object), so
   * its snapshot is made once, not every round (at 1,000 nodes a third of a round's CPU).
   */
  private readonly snapshots = new WeakMap<Node, NodeSnapshot>();

  /** Cached (frozen) nodes' groups, with the resolved groups they were found in. */
  private readonly groups = new WeakMap<Node, { round: ReturnType<typeof groupsOfRound>; group: string }>();

  constructor(
    coordinator: CoordinatorOptions,
    private readonly client: Client,
    /** The manager's cache: the conditions gates read through informers of it. */
    private readonly informers?: InformerSource,
  ) {
    this.options = plannerOptionsOf(coordinator);
    this.protocol = this.options.protocol as Protocol;
    this.defaultGroupName = this.options.defaultGroupName as string;
    this.nodeSelector = coordinator.nodeSelector?.trim() || undefined;
    this.groupSelector = coordinator.groupSelector?.trim() || undefined;
  }

  /** Lists the world through the client, from the cache (the grant fence reads nodes fresh). */
  async readWorld(): Promise<World> {
    const [nodes, groups] = await Promise.all([this.readNodes(false), this.readGroups()]);
    const [gates, disruption] = await Promise.all([
      readGateFacts(this.client, groups, this.informers),
      readDisruptionFacts(this.client, groups),
    ]);
    return { nodes, groups, gates, ...(disruption ? { disruption } : {}) };
  }

  /**
   * The grant fence's read: `world` with the nodes of the groups in `granting` and of those
   * ordered before them listed again from the API server, by their selectors, or every node when
   * one cannot be listed so (`decide/fresh-groups.ts`). The fence's guarantee is about the slots
   * nodes hold, so the nodes are the one list it needs fresh (`fence.ts`); the rest is config or
   * was itself read from the server moments ago, and no fence orders it either way. Answers what
   * was read fresh: slots may be taken in those groups only.
   */
  async withFreshNodes(
    world: World,
    granting: ReadonlySet<string>,
  ): Promise<{ world: World; read: FreshRead }> {
    const read = freshRead(granting, this.round.of(world.groups), this.nodeSelector);
    if (read.all) return { world: { ...world, nodes: await this.readNodes(true) }, read };
    const listFull = (selectors: readonly string[]) =>
      Promise.all(selectors.map((labelSelector) => this.client.list(Node, { labelSelector, direct: true })));
    const [lists, cacheCurrent] = await Promise.all([
      listFull(read.selectors),
      this.cacheCurrent(world, read.earlierSelectors),
    ]);
    // Where the cache is current, its copies are the fresh nodes: nothing to replace.
    const earlierLists = cacheCurrent ? [] : await listFull(read.earlierSelectors);
    const fresh = new Map<string, Node>();
    for (const list of [...earlierLists, ...lists])
      for (const n of list.items) fresh.set(n.metadata.name ?? '', n);
    const nodes = world.nodes.map((n) => {
      const name = n.metadata.name ?? '';
      const again = fresh.get(name);
      fresh.delete(name);
      return again ?? n;
    });
    return { world: { ...world, nodes: [...nodes, ...fresh.values()] }, read };
  }

  /**
   * Whether every node `selectors` list now (as metadata) is in `world` at the same resourceVersion:
   * then its cached copy is that node, status and all (`fresh-groups.ts`, step 2; if not, the
   * caller lists them in full).
   */
  private async cacheCurrent(world: World, selectors: readonly string[]): Promise<boolean> {
    if (selectors.length === 0) return true;
    const lists = await Promise.all(
      selectors.map((labelSelector) => this.client.list(NodeMetadata, { labelSelector, direct: true })),
    );
    const cached = new Map(world.nodes.map((n) => [n.metadata.name ?? '', n.metadata.resourceVersion]));
    return lists.every((list) =>
      list.items.every((m) => {
        const name = m.metadata.name ?? '';
        return cached.has(name) && cached.get(name) === m.metadata.resourceVersion;
      }),
    );
  }

  /** Each node's group's `order` in `world` (by `membership`); a node of no known group ranks last. */
  groupOrderOf(world: World, membership: Readonly<Record<string, string>>): (node: string) => number {
    const round = this.round.of(world.groups);
    const orders = new Map([...round.groups, round.defaultGroup].map((g) => [g.name, g.order]));
    return (node) => orders.get(membership[node] ?? '') ?? Number.POSITIVE_INFINITY;
  }

  /** The nodes the coordinator manages (its node selector's), from the cache or the API server. */
  async readNodes(direct: boolean): Promise<readonly Node[]> {
    const selector = this.nodeSelector;
    return (await this.client.list(Node, { ...(selector ? { labelSelector: selector } : {}), direct })).items;
  }

  /** The RebootGroups the coordinator manages (its group selector's), from the cache. */
  async readGroups(): Promise<readonly RebootGroup[]> {
    const selector = this.groupSelector;
    return (await this.client.list(RebootGroupType, selector ? { labelSelector: selector } : {})).items;
  }

  /** Whether every node is the coordinator's (no node selector): a node read by name is one of them. */
  get managesAllNodes(): boolean {
    return this.nodeSelector === undefined;
  }

  /** Plans from a world at `now` (pure), with the snapshots planned from. */
  planFor(
    world: World,
    now: number,
    refused?: Readonly<Record<string, RefusedNode>>,
  ): { plan: Plan; nodes: NodeSnapshot[] } {
    const nodes = world.nodes.map((n) => this.snapshotOf(n));
    return {
      plan: plan({
        nodes,
        groups: namedGroups(world),
        now,
        options: this.options,
        ...(refused ? { refused } : {}),
        ...(world.gates ? { gates: world.gates } : {}),
        ...(world.disruption ? { disruption: world.disruption } : {}),
      }),
      nodes,
    };
  }

  /**
   * The group `node` belongs to among `groups`: its plan's membership, without planning (the
   * groups are resolved again only when the cache's RebootGroups change, and a cached node's group
   * is kept beside it while the groups stay the same).
   */
  groupOf(groups: readonly RebootGroup[], node: Node): string {
    const round = this.round.of(groups);
    const known = this.groups.get(node);
    if (known?.round === round) return known.group;
    const group = groupOfNode(this.snapshotOf(node), round);
    if (Object.isFrozen(node)) this.groups.set(node, { round, group });
    return group;
  }

  /**
   * The planner's snapshot of `node`: kept beside a frozen (cached) node, frozen itself, since
   * plans share it; made afresh for any other (a fresh list's).
   */
  private snapshotOf(node: Node): NodeSnapshot {
    if (!Object.isFrozen(node)) return snapshotNode(node);
    let snapshot = this.snapshots.get(node);
    if (snapshot === undefined) {
      snapshot = freezeSnapshot(snapshotNode(node));
      this.snapshots.set(node, snapshot);
    }
    return snapshot;
  }

  /** Why `node` waits in its group's queue at `now`, if it does. */
  waitingEntry(world: World, node: string, now: number): QueueEntry | undefined {
    const { plan: p } = this.planFor(world, now);
    const group = p.membership[node];
    return group === undefined ? undefined : p.groupStatus[group]?.queue.find((q) => q.node === node);
  }
}

/** The world's groups as the planner takes them (a group without a name is no group). */
function namedGroups(world: World): NamedRebootGroup[] {
  return world.groups
    .filter((g) => typeof g.metadata?.name === 'string' && g.metadata.name !== '')
    .map((g) => ({ name: g.metadata.name as string, spec: g.spec }));
}

/** A snapshot no plan can edit (drafts copy before they write). */
function freezeSnapshot(snapshot: NodeSnapshot): NodeSnapshot {
  Object.freeze(snapshot.labels);
  Object.freeze(snapshot.annotations);
  Object.freeze(snapshot.conditions);
  return Object.freeze(snapshot);
}
