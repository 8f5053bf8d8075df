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
 * written only when it changed.
 */

import { coordinatorKeys, type Protocol } from '@capstan/reboot-protocol';
import {
  type Client,
  type Clock,
  type EventRecorder,
  isConflict,
  isNotFound,
  type Logger,
  Node,
  type ReconcileContext,
  type Reconciler,
  type Result,
} from '@capstan/runtime';
import { parseDuration } from './api/duration.js';
import type {
  RebootGroup,
  RebootGroupCondition,
  RebootGroupSpec,
  RebootGroupStatus,
} from './api/reboot-group.js';
import { isWithinWindows } from './api/reboot-window.js';
import { DEFAULT_FENCE_NAME, GrantFence } from './fence.js';
import { CoordinatorMetrics, NODE_STATES, type NodeState } from './metrics.js';
import { type CoordinatorOptions, plannerOptionsOf } from './options.js';
import type { Finding } from './planner/finding.js';
import { type NodeSnapshot, snapshotNode } from './planner/node-snapshot.js';
import { readFacts } from './planner/node-state.js';
import type { NodeWrite, PlannedAction } from './planner/node-write.js';
import { DEFAULT_GRANT_TIMEOUT_MS, DEFAULT_GROUP_NAME, type Plan, plan } from './planner/plan.js';
import { RebootGroupType } from './resources.js';

/** The single work-queue key of the coordinator. */
export const CLUSTER_KEY = 'cluster';

/** What the reconciler plans from. */
export interface World {
  nodes: readonly Node[];
  groups: readonly RebootGroup[];
}

/** Reads the world; by default from the manager's cache. Tests pass stale snapshots. */
export type WorldReader = () => Promise<World> | World;

/** What a round did, for tests and logs. */
export interface RoundOutcome {
  /** Writes applied, in order. */
  applied: NodeWrite[];
  /** Why the round stopped early, if it did. */
  stopped?: 'node-conflict' | 'fence-conflict';
  /** Status subresources written. */
  statusWrites: number;
  /** The plan the writes came from. */
  plan: Plan;
  /** Milliseconds until the next time-based event (or the resync period). */
  requeueAfter: number;
}

/** What the reconciler needs besides its options. */
export interface CoordinatorDeps {
  client: Client;
  clock: Clock;
  events?: EventRecorder;
  metrics?: CoordinatorMetrics;
  logger?: Logger;
  /** Default: list Nodes (with the node selector) and RebootGroups through `client`. */
  read?: WorldReader;
}

const DEFAULT_RESYNC_MS = 30_000;
const MINUTE = 60_000;

const EVENT_OF: Partial<Record<PlannedAction, { type: 'Normal' | 'Warning'; reason: string; note: string }>> =
  {
    Scheduled: {
      type: 'Normal',
      reason: 'RebootScheduled',
      note: 'scheduled for a reboot; waiting for before-reboot checks',
    },
    Revoked: {
      type: 'Normal',
      reason: 'RebootRevoked',
      note: 'stopped asking before its grant; schedule revoked',
    },
    Granted: { type: 'Normal', reason: 'RebootGranted', note: 'reboot granted' },
    GrantAdopted: {
      type: 'Warning',
      reason: 'GrantAdopted',
      note: 'reboot-ok found without our grant records; adopted',
    },
    RebootVerified: {
      type: 'Normal',
      reason: 'RebootVerified',
      note: 'rebooted into a new boot ID and Ready',
    },
    Released: { type: 'Normal', reason: 'RebootReleased', note: 'grant released' },
    Completed: {
      type: 'Normal',
      reason: 'RebootCompleted',
      note: 'back Ready and schedulable; reboot cycle complete',
    },
    MarkedFailed: {
      type: 'Warning',
      reason: 'RebootFailed',
      note: 'grant timed out; the node is marked failed',
    },
  };

function mergePatchOf(write: NodeWrite): Record<string, unknown> {
  const metadata: Record<string, unknown> = { resourceVersion: write.resourceVersion };
  const annotations: Record<string, string | null> = { ...write.setAnnotations };
  for (const k of write.removeAnnotations) annotations[k] = null;
  const labels: Record<string, string | null> = { ...write.setLabels };
  for (const k of write.removeLabels) labels[k] = null;
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  return { metadata };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** metav1.Time: RFC 3339, seconds. */
function metaTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** The reboot coordinator's reconciler. Stateless apart from metrics and which findings it reported. */
export class CoordinatorReconciler implements Reconciler {
  readonly protocol: Protocol;
  readonly fence: GrantFence;
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly events: EventRecorder | undefined;
  private readonly metrics: CoordinatorMetrics | undefined;
  private readonly logger: Logger | undefined;
  private readonly read: WorldReader;
  private reported = new Set<string>();

  constructor(
    readonly options: CoordinatorOptions,
    deps: CoordinatorDeps,
  ) {
    this.client = deps.client;
    this.clock = deps.clock;
    this.events = deps.events;
    this.metrics = deps.metrics;
    this.logger = deps.logger;
    this.protocol = plannerOptionsOf(options).protocol as Protocol;
    this.fence = new GrantFence(
      deps.client,
      deps.clock,
      options.namespace,
      options.fenceName ?? DEFAULT_FENCE_NAME,
    );
    this.read = deps.read ?? (() => this.readWorld(false));
  }

  /** Lists the world through the client: from the cache, or from the API server (`direct`). */
  async readWorld(direct: boolean): Promise<World> {
    const selector = this.options.nodeSelector?.trim();
    const [nodes, groups] = await Promise.all([
      this.client.list(Node, { ...(selector ? { labelSelector: selector } : {}), direct }),
      this.client.list(RebootGroupType, { direct }),
    ]);
    return { nodes: nodes.items, groups: groups.items };
  }

  /** Plans from a world at `now` (pure). */
  planFor(world: World, now: number): { plan: Plan; nodes: NodeSnapshot[] } {
    const nodes = world.nodes.map(snapshotNode);
    const groups = world.groups
      .filter((g) => typeof g.metadata?.name === 'string' && g.metadata.name !== '')
      .map((g) => ({ name: g.metadata.name as string, spec: g.spec }));
    return { plan: plan({ nodes, groups, now, options: plannerOptionsOf(this.options) }), nodes };
  }

  async reconcile(_request: unknown, context?: ReconcileContext): Promise<Result> {
    const outcome = await this.round();
    const log = context?.log ?? this.logger;
    if (outcome.applied.length > 0 || outcome.stopped) {
      log?.info(
        {
          writes: outcome.applied.map((w) => `${w.node}:${w.actions.join('+')}`),
          stopped: outcome.stopped,
          statusWrites: outcome.statusWrites,
        },
        'reboot plan applied',
      );
    }
    // A conflict means our snapshot was stale: plan again once the cache has caught up.
    if (outcome.stopped) return { requeue: true };
    return { requeueAfter: outcome.requeueAfter };
  }

  /** One round: read, plan, write, report. */
  async round(): Promise<RoundOutcome> {
    const now = this.clock.now();
    let world = await this.read();
    let { plan: p, nodes } = this.planFor(world, now);
    const applied: NodeWrite[] = [];
    let stopped: RoundOutcome['stopped'];

    if (p.writes.some((w) => w.consumesBudget)) {
      // Slots are taken only from a fresh snapshot, under the fence.
      const begun = await this.fence.begin();
      if (!begun.ok) {
        this.metrics?.conflicts.inc({ object: 'fence' });
        return { applied, stopped: 'fence-conflict', statusWrites: 0, plan: p, requeueAfter: 0 };
      }
      let token = begun.value;
      world = await this.readWorld(true);
      ({ plan: p, nodes } = this.planFor(world, now));
      for (const write of p.writes) {
        if (write.consumesBudget) {
          const claimed = await this.fence.claim(token, write.node, write.resourceVersion);
          if (!claimed.ok) {
            this.metrics?.conflicts.inc({ object: 'fence' });
            stopped = 'fence-conflict';
            break;
          }
          token = claimed.value;
        }
        if (!(await this.apply(write))) {
          stopped = 'node-conflict';
          break;
        }
        applied.push(write);
      }
    } else {
      for (const write of p.writes) {
        if (!(await this.apply(write))) {
          stopped = 'node-conflict';
          break;
        }
        applied.push(write);
      }
    }

    this.observe(p, nodes, world, applied, now);
    let statusWrites = 0;
    if (!stopped) {
      statusWrites = await this.writeStatuses(world, p, now);
      this.reportFindings(world, p);
    }
    return { applied, stopped, statusWrites, plan: p, requeueAfter: this.nextWake(world, p, nodes, now) };
  }

  /** Applies one write; false when its precondition failed (or the node is gone). */
  private async apply(write: NodeWrite): Promise<boolean> {
    try {
      await this.client.patch(Node, { name: write.node }, 'merge', mergePatchOf(write));
      return true;
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) {
        this.metrics?.conflicts.inc({ object: 'node' });
        return false;
      }
      throw err;
    }
  }

  private observe(p: Plan, nodes: NodeSnapshot[], world: World, applied: NodeWrite[], now: number): void {
    const metrics = this.metrics;
    if (metrics) {
      const counts = new Map<string, Record<NodeState, number>>();
      for (const g of Object.keys(p.groupStatus)) {
        counts.set(g, Object.fromEntries(NODE_STATES.map((s) => [s, 0])) as Record<NodeState, number>);
      }
      for (const n of nodes) {
        const group = p.membership[n.name];
        const c = group === undefined ? undefined : counts.get(group);
        if (!c) continue;
        const f = readFacts(n, n.annotations, n.labels, this.protocol);
        c[f.failed ? 'failed' : (f.phase.toLowerCase() as NodeState)]++;
      }
      metrics.nodes.reset();
      for (const [group, c] of counts)
        for (const s of NODE_STATES) metrics.nodes.set({ group, state: s }, c[s]);
    }
    for (const write of applied) {
      const group = p.membership[write.node] ?? '';
      const snapshot = nodes.find((n) => n.name === write.node);
      if (write.actions.includes('Granted')) metrics?.grants.inc({ group });
      if (write.actions.includes('Released') && snapshot) {
        const grantedAt = readFacts(snapshot, snapshot.annotations, snapshot.labels, this.protocol).grantedAt;
        if (grantedAt !== undefined)
          metrics?.rebootDuration.observe({ group }, Math.max(0, now - grantedAt) / 1000);
      }
      if (write.actions.includes('MarkedFailed')) {
        const reason = (write.setAnnotations[coordinatorKeys.failed] ?? '').split(' ')[0] || 'Unknown';
        metrics?.verificationFailures.inc({ group, reason });
      }
      const node = world.nodes.find((n) => n.metadata.name === write.node);
      if (!node || !this.events) continue;
      for (const action of write.actions) {
        const e = EVENT_OF[action];
        if (!e) continue;
        let note = `${e.note} (group ${group})`;
        if (action === 'MarkedFailed')
          note = `${note}: ${write.setAnnotations[coordinatorKeys.failed] ?? ''}`;
        this.events.record(Node, node, { type: e.type, reason: e.reason, action: 'Reboot', note });
      }
    }
  }

  /** Warning findings as events, once each while they last. */
  private reportFindings(world: World, p: Plan): void {
    const current = new Set<string>();
    for (const f of p.findings) {
      if (f.severity !== 'Warning') continue;
      const key = `${f.kind}|${f.node ?? ''}|${f.group ?? ''}|${f.key ?? ''}|${f.message}`;
      current.add(key);
      if (this.reported.has(key)) continue;
      this.logger?.warn({ finding: f }, f.message);
      if (!this.events) continue;
      const node = f.node ? world.nodes.find((n) => n.metadata.name === f.node) : undefined;
      const group = f.group ? world.groups.find((g) => g.metadata.name === f.group) : undefined;
      const input = { type: 'Warning' as const, reason: f.kind, action: 'Plan', note: f.message };
      if (node) this.events.record(Node, node, input);
      else if (group) this.events.record(RebootGroupType, group, input);
    }
    this.reported = current;
  }

  private findingsOf(p: Plan, group: string): Finding[] {
    return p.findings.filter(
      (f) =>
        f.severity === 'Warning' &&
        f.kind !== 'InvalidGroup' &&
        f.kind !== 'NodeFailed' &&
        (f.group === group ||
          (f.group === undefined && f.node !== undefined && p.membership[f.node] === group)),
    );
  }

  /** Writes each RebootGroup's status when it changed; returns how many were written. */
  private async writeStatuses(world: World, p: Plan, now: number): Promise<number> {
    let written = 0;
    for (const group of world.groups) {
      const name = group.metadata?.name;
      const computed = name ? p.groupStatus[name] : undefined;
      if (!name || !computed) continue;
      const existing: Record<string, unknown> = isRecord(group.status) ? group.status : {};
      const before = Array.isArray(existing.conditions)
        ? (existing.conditions as unknown[]).filter(isRecord)
        : [];
      const findings = this.findingsOf(p, name);
      const kinds = [...new Set(findings.map((f) => f.kind))];
      const degraded: RebootGroupCondition =
        findings.length > 0
          ? {
              type: 'Degraded',
              status: 'True',
              reason: kinds.length === 1 ? (kinds[0] as string) : 'SeveralFindings',
              message:
                findings
                  .slice(0, 5)
                  .map((f) => f.message)
                  .join('; ') + (findings.length > 5 ? `; and ${findings.length - 5} more` : ''),
            }
          : { type: 'Degraded', status: 'False', reason: 'NoFindings', message: 'nothing to report' };
      const generation =
        typeof group.metadata.generation === 'number' ? group.metadata.generation : undefined;
      const conditions = [...computed.conditions, degraded].map((c) => {
        const prev = before.find((b) => b.type === c.type);
        const lastTransitionTime =
          prev && prev.status === c.status && typeof prev.lastTransitionTime === 'string'
            ? prev.lastTransitionTime
            : metaTime(now);
        return {
          ...c,
          lastTransitionTime,
          ...(generation !== undefined ? { observedGeneration: generation } : {}),
        };
      });
      const status: RebootGroupStatus = {
        ...computed,
        conditions,
        ...(generation !== undefined ? { observedGeneration: generation } : {}),
      };
      // Field by field: key order may differ from what the server returns.
      if (sameJson(status, existing)) continue;
      try {
        await this.client.patchStatus(RebootGroupType, { name }, 'merge', { status });
        written++;
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
    }
    return written;
  }

  /** When the next time-based event is due: a grant deadline, a window opening, or the resync. */
  private nextWake(world: World, p: Plan, nodes: NodeSnapshot[], now: number): number {
    const resync = this.options.resyncPeriodMs ?? DEFAULT_RESYNC_MS;
    let wake = resync;
    const specs = new Map<string, RebootGroupSpec>();
    for (const g of world.groups) if (g.metadata?.name) specs.set(g.metadata.name, g.spec);
    const defaultName = this.options.defaultGroupName ?? DEFAULT_GROUP_NAME;
    const timeoutOf = (group: string): number => {
      const spec = specs.get(group) ?? (group === defaultName ? this.options.defaultGroup : undefined);
      const ms = parseDuration(isRecord(spec) ? spec.grantTimeout : undefined);
      return ms !== undefined && ms > 0
        ? ms
        : (this.options.defaultGrantTimeoutMs ?? DEFAULT_GRANT_TIMEOUT_MS);
    };
    for (const n of nodes) {
      const group = p.membership[n.name];
      if (group === undefined) continue;
      const f = readFacts(n, n.annotations, n.labels, this.protocol);
      if (f.grantedAt === undefined || f.failed) continue;
      const due = f.grantedAt + timeoutOf(group) - now;
      if (due > 0) wake = Math.min(wake, due + 1);
    }
    for (const [group, status] of Object.entries(p.groupStatus)) {
      if (!status.queue.some((q) => q.reason === 'OutsideWindow')) continue;
      const spec = specs.get(group) ?? (group === defaultName ? this.options.defaultGroup : undefined);
      const windows = isRecord(spec) && Array.isArray(spec.windows) ? spec.windows : undefined;
      const firstMinute = MINUTE - (now % MINUTE);
      for (let t = firstMinute; t < wake; t += MINUTE) {
        if (isWithinWindows(windows, now + t)) {
          wake = Math.min(wake, t);
          break;
        }
      }
    }
    return Math.max(1, wake);
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameJson(x, b[i]));
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => sameJson(a[k], b[k]));
}
