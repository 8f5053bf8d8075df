/**
 * A simulated cluster for the coordinator's model-based tests: a FakeCluster with Nodes,
 * RebootGroups and the fence Lease, agents that play the update agent's part through the API, a
 * budget oracle checked after every node write, and coordinators whose transports can crash after
 * a number of writes or be interleaved by a fast-check scheduler.
 */

import { capstanProtocol, coordinatorKeys, type Protocol } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { type ApiTransport, Lease, Node } from '@capstan/runtime/client';
import { FakeCluster, type ManualClock } from '@capstan/runtime/testing';
import type fc from 'fast-check';
import {
  type CoordinatorOptions,
  CoordinatorReconciler,
  type RebootGroup,
  type RebootGroupSpec,
  RebootGroupType,
  resolveBudget,
  type World,
} from '../src/index.js';

export const NAMESPACE = 'capstan-system';
export const MINUTE = 60_000;

/** Thrown by a crashing transport: the coordinator died mid-round. */
export class Crash extends Error {
  override readonly name = 'Crash';
}

export type Stage = 'idle' | 'draining' | 'down' | 'booted';

export interface Agent {
  wants: boolean;
  stage: Stage;
  hung: boolean;
  boots: number;
  sick: boolean;
}

export interface SimGroup {
  name: string;
  pool: string;
  spec: RebootGroupSpec;
}

export interface SimConfig {
  nodes: Array<{ name: string; pool: string | undefined }>;
  groups: SimGroup[];
  protocol?: Protocol;
  grantTimeoutMs: number;
}

/** Whether a node holds a slot the coordinator gave out (scheduled, granted, not yet released or back). */
export function holdsSlot(node: Node, protocol: Protocol): boolean {
  const a = node.metadata.annotations ?? {};
  const l = node.metadata.labels ?? {};
  return (
    l[protocol.labels.beforeReboot] === 'true' ||
    l[protocol.labels.afterReboot] === 'true' ||
    a[protocol.annotations.rebootOk] === 'true' ||
    a[coordinatorKeys.grantedAt] !== undefined ||
    a[coordinatorKeys.grantedBootId] !== undefined
  );
}

/**
 * Whether a node counts against its group's budget (|D|): holding a slot, marked failed, rebooting,
 * NotReady, cordoned or under pressure. Independent of the planner's own reading.
 */
export function countsOracle(node: Node, protocol: Protocol): boolean {
  const a = node.metadata.annotations ?? {};
  const conditions = node.status?.conditions ?? [];
  const status = (type: string) => conditions.find((c) => c.type === type)?.status;
  return (
    holdsSlot(node, protocol) ||
    a[coordinatorKeys.failed] !== undefined ||
    a[protocol.annotations.rebootInProgress] === 'true' ||
    status('Ready') !== 'True' ||
    node.spec?.unschedulable === true ||
    status('DiskPressure') === 'True' ||
    status('NetworkUnavailable') === 'True'
  );
}

/** A transport that runs `before` ahead of every call and `around` instead of it. */
function wrapTransport(
  target: ApiTransport,
  before: (verb: string) => Promise<void> | void,
  around: (verb: string, args: unknown[], call: () => Promise<unknown>) => Promise<unknown> = (
    _v,
    _a,
    call,
  ) => call(),
): ApiTransport {
  return new Proxy(target, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await before(String(prop));
        return around(String(prop), args, () =>
          (value as (...a: unknown[]) => Promise<unknown>).apply(t, args),
        );
      };
    },
  });
}

const WRITES = new Set(['create', 'update', 'patch', 'delete']);

export class Sim {
  readonly fake: FakeCluster;
  readonly agents = new Map<string, Agent>();
  readonly protocol: Protocol;
  readonly violations: string[] = [];
  /** Worlds after each step, oldest first: stale snapshots for coordinators. */
  readonly history: World[] = [];
  /** Highest number of slot holders seen per group. */
  readonly peak = new Map<string, number>();
  private readonly budgets = new Map<string, number>();
  private readonly groupOf = new Map<string, string>();

  constructor(
    readonly clock: ManualClock,
    readonly config: SimConfig,
  ) {
    this.protocol = config.protocol ?? capstanProtocol;
    this.fake = new FakeCluster({ clock, kinds: [Node, RebootGroupType, Lease] });
    const pools = new Map(config.groups.map((g) => [g.pool, g.name]));
    for (const n of config.nodes) this.groupOf.set(n.name, (n.pool && pools.get(n.pool)) || 'default');
    const sizes = new Map<string, number>();
    for (const g of this.groupOf.values()) sizes.set(g, (sizes.get(g) ?? 0) + 1);
    for (const [g, size] of sizes) {
      const spec = config.groups.find((x) => x.name === g)?.spec ?? { maxUnavailable: 1 };
      this.budgets.set(g, resolveBudget(spec.maxUnavailable, size));
    }
  }

  async init(): Promise<void> {
    for (const g of this.config.groups) {
      this.fake.seed(RebootGroupType, {
        apiVersion: 'reboot.capstan.dev/v1alpha1',
        kind: 'RebootGroup',
        metadata: { name: g.name },
        spec: { ...g.spec, nodeSelector: { matchLabels: { pool: g.pool } } },
      } as RebootGroup);
    }
    for (const n of this.config.nodes) {
      this.fake.seed(Node, { metadata: { name: n.name, labels: n.pool ? { pool: n.pool } : {} } });
      this.agents.set(n.name, { wants: false, stage: 'idle', hung: false, boots: 0, sick: false });
      await this.writeStatus(n.name);
    }
    this.snapshot();
  }

  /** The coordinator options every simulated coordinator uses. */
  options(): CoordinatorOptions {
    return {
      namespace: NAMESPACE,
      protocol: this.protocol,
      defaultGroup: { maxUnavailable: 1 },
      defaultGrantTimeoutMs: this.config.grantTimeoutMs,
    };
  }

  /**
   * A coordinator instance (as after a restart: nothing but the API), reading the world
   * `staleness` steps old, whose transport crashes after `crashAfterWrites` writes and, with a
   * scheduler, has every call ordered by it.
   */
  coordinator(
    staleness = 0,
    crashAfterWrites?: number,
    scheduler?: fc.Scheduler,
    label = 'leader',
  ): CoordinatorReconciler {
    let writes = 0;
    let crashed = false;
    const transport = wrapTransport(
      this.checked(),
      async (verb) => {
        if (scheduler) await scheduler.schedule(Promise.resolve(`${label}:${verb}`));
        if (crashed) throw new Crash(`${label} is dead`);
        if (WRITES.has(verb) && crashAfterWrites !== undefined && writes++ >= crashAfterWrites) {
          crashed = true;
          throw new Crash(`${label} crashed before write ${writes}`);
        }
      },
      async (verb, args, call) => {
        if (!WRITES.has(verb) || args[0] !== Node) return call();
        // Invariant 1, per coordinator write: |D| never rises above max(budget, |D| before).
        const before = this.unavailable();
        const result = await call();
        const after = this.unavailable();
        for (const [g, n] of after) {
          const was = before.get(g) ?? 0;
          if (n > was && n > this.budgetOf(g)) {
            this.violations.push(
              `${label}: a write on ${(args[1] as { name: string }).name} raised |D| of ${g} from ${was} to ${n} (budget ${this.budgetOf(g)})`,
            );
          }
        }
        return result;
      },
    );
    const world = this.history[Math.max(0, this.history.length - 1 - staleness)] as World;
    return new CoordinatorReconciler(this.options(), {
      client: new Client(transport),
      clock: this.clock,
      read: () => world,
    });
  }

  /** Runs a round, swallowing a crash (the process died); anything else fails the test. */
  static async survive(round: Promise<unknown>): Promise<void> {
    try {
      await round;
    } catch (err) {
      if (!(err instanceof Crash)) throw err;
    }
  }

  /** The fake cluster, with the budget oracle run after every successful node write. */
  private checked(): ApiTransport {
    const fake = this.fake;
    return new Proxy(fake, {
      get: (t, prop, receiver) => {
        const value = Reflect.get(t, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(t, args);
          if (WRITES.has(String(prop)) && args[0] === Node) this.checkBudget();
          return result;
        };
      },
    });
  }

  /** Invariant 1 as the oracle sees it: slot holders per group never exceed the budget. */
  checkBudget(): void {
    const holders = new Map<string, string[]>();
    for (const n of this.fake.objects(Node)) {
      if (!holdsSlot(n, this.protocol)) continue;
      const g = this.groupOf.get(n.metadata.name as string) as string;
      holders.set(g, [...(holders.get(g) ?? []), n.metadata.name as string]);
    }
    for (const [g, list] of holders) {
      this.peak.set(g, Math.max(this.peak.get(g) ?? 0, list.length));
      const budget = this.budgets.get(g) ?? 1;
      if (list.length > budget)
        this.violations.push(`group ${g}: ${list.join(', ')} hold slots, budget ${budget}`);
    }
  }

  /** |D| per group, by the oracle. */
  unavailable(): Map<string, number> {
    const d = new Map<string, number>();
    for (const n of this.fake.objects(Node)) {
      if (!countsOracle(n, this.protocol)) continue;
      const g = this.groupOf.get(n.metadata.name as string) as string;
      d.set(g, (d.get(g) ?? 0) + 1);
    }
    return d;
  }

  budgetOf(group: string): number {
    return this.budgets.get(group) ?? 1;
  }

  /** Records the current world as the newest snapshot. */
  snapshot(): void {
    this.history.push({ nodes: this.fake.objects(Node), groups: this.fake.objects(RebootGroupType) });
    if (this.history.length > 8) this.history.shift();
  }

  node(name: string): Node {
    return this.fake.getObject(Node, { name }) as Node;
  }

  private async patchNode(name: string, body: Record<string, unknown>): Promise<void> {
    await this.checked().patch(Node, { name }, 'merge', body);
  }

  async writeStatus(name: string): Promise<void> {
    const a = this.agents.get(name) as Agent;
    const ready = a.stage !== 'down' && !a.sick;
    await this.checked().patch(
      Node,
      { name },
      'merge',
      {
        status: {
          conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
          nodeInfo: { bootID: `${name}-boot-${a.boots}`, machineID: `machine-${name}` },
        },
      },
      { subresource: 'status' },
    );
  }

  /** The node's agent asks for a reboot (when idle). */
  request(name: string): void {
    const a = this.agents.get(name) as Agent;
    if (a.stage === 'idle') a.wants = true;
  }

  async setSick(name: string, sick: boolean): Promise<void> {
    const a = this.agents.get(name) as Agent;
    a.sick = sick;
    await this.writeStatus(name);
  }

  /** Every agent takes one step of the FLUO-like agent cycle. */
  async agentsStep(): Promise<void> {
    const P = this.protocol.annotations;
    for (const [name, a] of this.agents) {
      const ann = this.node(name).metadata.annotations ?? {};
      const needed = ann[P.rebootNeeded] === 'true';
      const ok = ann[P.rebootOk] === 'true';
      switch (a.stage) {
        case 'idle':
          if (a.wants && !needed && !ok) {
            await this.patchNode(name, { metadata: { annotations: { [P.rebootNeeded]: 'true' } } });
          } else if (a.wants && needed && ok && !a.hung) {
            await this.patchNode(name, {
              metadata: { annotations: { [P.rebootInProgress]: 'true', [P.agentMadeUnschedulable]: 'true' } },
              spec: { unschedulable: true },
            });
            a.stage = 'draining';
          }
          break;
        case 'draining':
          a.stage = 'down';
          a.boots++;
          await this.writeStatus(name);
          break;
        case 'down':
          if (a.sick) break;
          a.stage = 'booted';
          a.wants = false;
          await this.writeStatus(name);
          await this.patchNode(name, {
            metadata: { annotations: { [P.rebootNeeded]: 'false', [P.rebootInProgress]: 'false' } },
          });
          break;
        case 'booted':
          if (ok) break;
          await this.patchNode(name, {
            metadata: { annotations: { [P.agentMadeUnschedulable]: 'false' } },
            spec: { unschedulable: false },
          });
          a.stage = 'idle';
          break;
      }
    }
  }

  /** An administrator acknowledges failures: removes the marker and abandons the grant. */
  async clearFailures(): Promise<void> {
    const P = this.protocol;
    for (const n of this.fake.objects(Node)) {
      const a = n.metadata.annotations ?? {};
      if (a[coordinatorKeys.failed] === undefined) continue;
      await this.patchNode(n.metadata.name as string, {
        metadata: {
          annotations: {
            [coordinatorKeys.failed]: null,
            [P.annotations.rebootOk]: null,
            [coordinatorKeys.grantedAt]: null,
            [coordinatorKeys.grantedBootId]: null,
          },
          labels: { [P.labels.beforeReboot]: null, [P.labels.afterReboot]: null },
        },
      });
    }
  }

  /** Whether every request was served and nothing is in flight or cordoned. */
  settled(): boolean {
    for (const [name, a] of this.agents) {
      if (a.wants || a.stage !== 'idle') return false;
      const n = this.node(name);
      if (holdsSlot(n, this.protocol) || n.spec?.unschedulable) return false;
    }
    return true;
  }

  inFlight(): boolean {
    return this.fake.objects(Node).some((n) => holdsSlot(n, this.protocol));
  }
}
