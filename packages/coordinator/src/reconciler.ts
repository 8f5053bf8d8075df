/**
 * The coordinator's reconciler: reads every Node and RebootGroup, asks the planner what to do,
 * applies the plan with conditional writes, and reports (group status, events, metrics).
 *
 * One key (`cluster`) for everything, since a plan is global. Every node write is a merge patch
 * carrying the resourceVersion of the snapshot it was planned from, so a write planned from a
 * stale view of its node fails with a Conflict and the round is planned again. Writes that take a
 * slot of a budget additionally go through the {@link GrantFence}, planned from a fresh list of the
 * nodes, so two coordinators (a restart overlapping its predecessor, two leaders) never over-grant.
 * An unchanged world writes nothing: the planner's plan of its own result is empty, and status is
 * written only when it changed. When to plan again is the planner's answer too.
 */
import type { Protocol } from '@capstan/reboot-protocol';
import {
  type Client,
  type Clock,
  conditionalMergePatch,
  type EventRecorder,
  isConflict,
  isNotFound,
  type Logger,
  type ReconcileContext,
  type Reconciler,
  type Result,
} from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
import { grantingGroups, writesAfterFreshRead } from './decide/fresh-groups.js';
import type { NodeSnapshot } from './decide/node-snapshot.js';
import { applyWrites, type NodeWrite } from './decide/node-write.js';
import type { Plan } from './decide/plan.js';
import { boundStamps, STAMPS_PER_ROUND } from './decide/stamp-batch.js';
import { DEFAULT_FENCE_NAME, type FenceToken, GrantFence } from './fence.js';
import type { InformerSource } from './gates/condition-reads.js';
import { writeGroupStatuses } from './group-status.js';
import type { CoordinatorMetrics } from './metrics.js';
import type { Notifier } from './notifications/notifier.js';
import type { CoordinatorOptions } from './options.js';
import { PlannerService, type World, type WorldReader } from './planner-service.js';
import { RoundReporter } from './round-report.js';
import { SilenceKeeper } from './silences/silence-keeper.js';
import { isRefusal, WriteRefusals } from './write-refusals.js';

export type { World, WorldReader } from './planner-service.js';

/** The single work-queue key of the coordinator. */
export const CLUSTER_KEY = 'cluster';

/** What a round did, for tests and logs. */
export interface RoundOutcome {
  /** Writes applied, in order. */
  applied: NodeWrite[];
  /** Why the round stopped early, if it did. */
  stopped?: 'node-conflict' | 'fence-conflict';
  /** Nodes whose write the API server refused this round (backed off; the others went on). */
  refused: string[];
  /** Status subresources written. */
  statusWrites: number;
  /** The plan the writes came from. */
  plan: Plan;
  /** Milliseconds until the next time-based event (or the resync period). */
  requeueAfter: number;
  /** Slots left for the next round: planned in a group the fence's read did not list fresh. */
  deferred?: number;
  /** New asks' stamps left for the next round (`decide/stamp-batch.ts`). */
  stampsDeferred?: number;
}

/** What the reconciler needs besides its options. */
export interface CoordinatorDeps {
  client: Client;
  clock: Clock;
  events?: EventRecorder;
  metrics?: CoordinatorMetrics;
  logger?: Logger;
  /** Told of every round's landed writes (webhook notifications); none: nobody is told. */
  notifier?: Notifier;
  /** Default: list Nodes (with the node selector) and RebootGroups through `client`. */
  read?: WorldReader;
  /** Informers for the conditions gates' objects (the manager's cache); none: read from the server. */
  informers?: InformerSource;
}

/** The reboot coordinator's reconciler. Stateless apart from metrics and which findings it reported. */
export class CoordinatorReconciler implements Reconciler {
  readonly protocol: Protocol;
  readonly fence: GrantFence;
  /** Reads and plans the world; shared with the FleetLock server. */
  readonly planner: PlannerService;
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly metrics: CoordinatorMetrics | undefined;
  private readonly logger: Logger | undefined;
  private readonly read: WorldReader;
  private readonly reporter: RoundReporter;
  /** Alertmanager silences of the nodes holding a grant; beside the rounds, never in their way. */
  private readonly silences: SilenceKeeper;
  private readonly notifier: Notifier | undefined;
  /** Nodes whose writes are refused, with their backoff. */
  readonly refusals = new WriteRefusals();
  private refusedThisRound: string[] = [];
  /** The group of each node in the plan being applied (for the refusal metric). */
  private membership: Readonly<Record<string, string>> = {};

  constructor(
    readonly options: CoordinatorOptions,
    deps: CoordinatorDeps,
  ) {
    this.client = deps.client;
    this.clock = deps.clock;
    this.metrics = deps.metrics;
    this.logger = deps.logger;
    this.planner = new PlannerService(options, deps.client, deps.informers);
    this.protocol = this.planner.protocol;
    this.fence = new GrantFence(
      deps.client,
      deps.clock,
      options.namespace,
      options.fenceName ?? DEFAULT_FENCE_NAME,
    );
    this.read = deps.read ?? (() => this.planner.readWorld());
    this.reporter = new RoundReporter(this.protocol, deps);
    this.silences = new SilenceKeeper(this.client, this.logger);
    this.notifier = deps.notifier;
  }

  async reconcile(_request: unknown, context?: ReconcileContext): Promise<Result> {
    const outcome = await this.round();
    const log = context?.log ?? this.logger;
    if (outcome.applied.length > 0 || outcome.stopped || outcome.refused.length > 0) {
      log?.info(
        {
          writes: outcome.applied.map((w) => `${w.node}:${w.actions.join('+')}`),
          stopped: outcome.stopped,
          refused: outcome.refused,
          statusWrites: outcome.statusWrites,
        },
        'reboot plan applied',
      );
    }
    // A conflict means our snapshot was stale: plan again once the cache has caught up.
    // A refusal: plan again at once, so the planner passes the node over and its group reports it.
    // Deferred slots: at once too, with their group read fresh.
    if (outcome.stopped || outcome.refused.length > 0 || outcome.deferred) return { requeue: true };
    // Stamps held back: the next round writes more of them, at once and without backoff.
    if (outcome.stampsDeferred) return { requeueAfter: 1 };
    return { requeueAfter: outcome.requeueAfter };
  }

  /** One round: read, plan, write, report. */
  async round(): Promise<RoundOutcome> {
    const now = this.clock.now();
    this.refusedThisRound = [];
    let world = await this.read();
    this.refusals.retain(new Set(world.nodes.map((n) => n.metadata.name ?? '')));
    let { plan: p, nodes } = this.planner.planFor(world, now, this.refusals.refused(now));
    this.membership = p.membership;
    let applied: NodeWrite[];
    let stopped: RoundOutcome['stopped'];
    const bounded = (writes: readonly NodeWrite[]) =>
      boundStamps(writes, STAMPS_PER_ROUND, this.planner.groupOrderOf(world, p.membership));
    if (p.writes.some((w) => w.consumesBudget)) {
      // Slots are taken only from a fresh snapshot, under the fence.
      const begun = await this.fence.begin();
      if (!begun.ok && begun.conflict) {
        this.metrics?.conflicts.inc({ object: 'fence' });
        return stoppedBefore(p, 'fence-conflict');
      }
      if (!begun.ok) {
        // The fence cannot be settled: take no slot, but free and keep what holds budget.
        this.logger?.error(
          { node: begun.refused },
          'grant fence blocked: a pending write cannot be poisoned',
        );
        const sent = bounded(p.writes.filter((w) => !w.consumesBudget));
        ({ applied, stopped } = await this.applyAll(sent.writes));
        const outcome = await this.finish({ world, p, nodes, applied, stopped, now });
        return { ...outcome, stampsDeferred: sent.deferred };
      }
      const fresh = await this.planner.withFreshNodes(world, grantingGroups(p));
      world = fresh.world;
      ({ plan: p, nodes } = this.planner.planFor(world, now, this.refusals.refused(now)));
      this.membership = p.membership;
      const { writes, deferred } = writesAfterFreshRead(p, fresh.read);
      const sent = bounded(writes);
      ({ applied, stopped } = await this.applyFenced(sent.writes, begun.value));
      const outcome = await this.finish({ world, p, nodes, applied, stopped, now });
      // A slot the fresh read opened in a group it did not read: the next round reads that group.
      return { ...outcome, ...(deferred > 0 ? { deferred } : {}), stampsDeferred: sent.deferred };
    }
    const sent = bounded(p.writes);
    ({ applied, stopped } = await this.applyAll(sent.writes));
    const outcome = await this.finish({ world, p, nodes, applied, stopped, now });
    return { ...outcome, stampsDeferred: sent.deferred };
  }

  private async finish(r: {
    world: World;
    p: Plan;
    nodes: NodeSnapshot[];
    applied: NodeWrite[];
    stopped: RoundOutcome['stopped'];
    now: number;
  }): Promise<RoundOutcome> {
    const { world, p, applied, stopped, now } = r;
    this.reporter.observe(p, r.nodes, world, applied, now);
    this.notifier?.afterRound(p, world.groups, applied, now);
    let statusWrites = 0;
    if (!stopped) {
      statusWrites = await writeGroupStatuses(this.client, world, p, this.clock);
      this.reporter.reportFindings(world, p);
    }
    if (world.groups.some((g) => g.spec?.silences !== undefined))
      void this.silences.sync(world.groups, applyWrites(r.nodes, applied), p.membership, now);
    const retry = this.refusals.nextRetryAfter(now);
    const requeueAfter = retry === undefined ? p.wakeAfterMs : Math.min(p.wakeAfterMs, retry);
    return { applied, stopped, refused: this.refusedThisRound, statusWrites, plan: p, requeueAfter };
  }

  /** Applies writes in order, stopping at the first whose precondition failed. */
  private async applyAll(writes: readonly NodeWrite[]): Promise<Pick<RoundOutcome, 'applied' | 'stopped'>> {
    const applied: NodeWrite[] = [];
    for (const write of writes) {
      const result = await this.apply(write);
      if (result === 'conflict') return { applied, stopped: 'node-conflict' };
      if (result === 'landed') applied.push(write);
    }
    return { applied };
  }

  /** Applies writes in order, each that takes a slot claimed under the fence first. */
  private async applyFenced(
    writes: readonly NodeWrite[],
    begun: FenceToken,
  ): Promise<Pick<RoundOutcome, 'applied' | 'stopped'>> {
    const applied: NodeWrite[] = [];
    let token = begun;
    for (const write of writes) {
      if (this.refusals.isBackedOff(write.node, this.clock.now())) continue;
      if (write.consumesBudget) {
        const claimed = await this.fence.claim(token, write.node, write.resourceVersion);
        if (!claimed.ok) {
          this.metrics?.conflicts.inc({ object: 'fence' });
          return { applied, stopped: 'fence-conflict' };
        }
        token = claimed.value;
      }
      const result = await this.apply(write);
      // Any answer (a thrown error is none) settles the claim: the write cannot land later.
      if (write.consumesBudget) this.fence.answered(token);
      if (result === 'conflict') return { applied, stopped: 'node-conflict' };
      if (result === 'landed') {
        applied.push(write);
        continue;
      }
      if (write.consumesBudget) {
        // The server answered no: the claimed write never lands, so the fence is clear again.
        const settled = await this.fence.settleRefused(token);
        if (!settled.ok) {
          this.metrics?.conflicts.inc({ object: 'fence' });
          return { applied, stopped: 'fence-conflict' };
        }
        token = settled.value;
      }
    }
    return { applied };
  }

  /**
   * Applies one write: `conflict` when its precondition failed (or the node is gone), `refused`
   * when the server refused it for good (the node is backed off and reported; skipped while so).
   */
  private async apply(write: NodeWrite): Promise<'landed' | 'conflict' | 'refused' | 'skipped'> {
    const now = this.clock.now();
    if (this.refusals.isBackedOff(write.node, now)) return 'skipped';
    const annotations: Record<string, string | null> = { ...write.setAnnotations };
    for (const k of write.removeAnnotations) annotations[k] = null;
    const labels: Record<string, string | null> = { ...write.setLabels };
    for (const k of write.removeLabels) labels[k] = null;
    try {
      const body = conditionalMergePatch(write.resourceVersion, { annotations, labels });
      await this.client.patch(Node, { name: write.node }, 'merge', body);
      this.refusals.clear(write.node);
      return 'landed';
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) {
        this.metrics?.conflicts.inc({ object: 'node' });
        return 'conflict';
      }
      if (!isRefusal(err)) throw err;
      const backoff = this.refusals.record(write.node, err, now);
      this.refusedThisRound.push(write.node);
      this.metrics?.writeRefusals.inc({ group: this.membership[write.node] ?? '', code: String(err.code) });
      this.logger?.error(
        { node: write.node, code: err.code, reason: err.reason, backoffMs: backoff, err: err.message },
        'node write refused; the node is backed off, the others go on',
      );
      return 'refused';
    }
  }
}

/** A round that stopped before writing anything; it is planned again at once. */
function stoppedBefore(p: Plan, why: NonNullable<RoundOutcome['stopped']>): RoundOutcome {
  return { applied: [], stopped: why, refused: [], statusWrites: 0, plan: p, requeueAfter: 0 };
}
