/**
 * The planner as a service to the parts of the coordinator that need its answers: the reconciler
 * (which applies plans) and the FleetLock server (which asks which group a node is in and why it
 * waits). It reads the world through the client and plans with the coordinator's options; it
 * writes nothing.
 */
import type { Protocol } from '@capstan/reboot-protocol';
import type { Client } from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
import type { QueueEntry, RebootGroup } from './api/reboot-group.js';
import { type CoordinatorOptions, plannerOptionsOf } from './options.js';
import type { NamedRebootGroup } from './planner/group-policy.js';
import { type NodeSnapshot, snapshotNode } from './planner/node-snapshot.js';
import { groupOfNode, groupsOfRound, type Plan, type PlannerOptions, plan } from './planner/plan.js';
import type { RefusedNode } from './planner/queue.js';
import { RebootGroupType } from './resources.js';
import { ListMemo } from './same-objects.js';

/** What the coordinator plans from. */
export interface World {
  nodes: readonly Node[];
  groups: readonly RebootGroup[];
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
  private readonly round = new ListMemo<RebootGroup, ReturnType<typeof groupsOfRound>>((groups) =>
    groupsOfRound({ groups: namedGroups({ nodes: [], groups }), options: this.options }, []),
  );

  constructor(
    coordinator: CoordinatorOptions,
    private readonly client: Client,
  ) {
    this.options = plannerOptionsOf(coordinator);
    this.protocol = this.options.protocol as Protocol;
    this.defaultGroupName = this.options.defaultGroupName as string;
    this.nodeSelector = coordinator.nodeSelector?.trim() || undefined;
  }

  /** Lists the world through the client: from the cache, or from the API server (`direct`). */
  async readWorld(direct: boolean): Promise<World> {
    const selector = this.nodeSelector;
    const [nodes, groups] = await Promise.all([
      this.client.list(Node, { ...(selector ? { labelSelector: selector } : {}), direct }),
      this.client.list(RebootGroupType, { direct }),
    ]);
    return { nodes: nodes.items, groups: groups.items };
  }

  /** Plans from a world at `now` (pure), with the snapshots planned from. */
  planFor(
    world: World,
    now: number,
    refused?: Readonly<Record<string, RefusedNode>>,
  ): { plan: Plan; nodes: NodeSnapshot[] } {
    const nodes = world.nodes.map(snapshotNode);
    return {
      plan: plan({
        nodes,
        groups: namedGroups(world),
        now,
        options: this.options,
        ...(refused ? { refused } : {}),
      }),
      nodes,
    };
  }

  /**
   * The group `node` (one of `world`'s) belongs to: its plan's membership, without planning (the
   * groups are resolved again only when the cache's RebootGroups change).
   */
  groupOf(world: World, node: Node): string {
    return groupOfNode(snapshotNode(node), this.round.of(world.groups));
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
