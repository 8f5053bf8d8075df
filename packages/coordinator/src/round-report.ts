/**
 * What a round tells the outside: the node gauge by group and state, counters for grants,
 * releases and failures, the events the plan announced for the writes that landed, and warning
 * findings as events, once each while they last.
 */
import { coordinatorKeys, type Protocol } from '@capstan/reboot-protocol';
import type { EventRecorder, Logger } from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
import type { NodeSnapshot } from './decide/node-snapshot.js';
import { snapshotFacts } from './decide/node-state.js';
import type { NodeWrite } from './decide/node-write.js';
import type { Plan } from './decide/plan.js';
import { type CoordinatorMetrics, NODE_STATES, type NodeState } from './metrics.js';
import type { World } from './planner-service.js';
import { RebootGroupType } from './resources.js';

/** Reports rounds; remembers only which findings it already reported. */
export class RoundReporter {
  private reported = new Set<string>();

  constructor(
    private readonly protocol: Protocol,
    private readonly deps: { events?: EventRecorder; metrics?: CoordinatorMetrics; logger?: Logger },
  ) {}

  /** Metrics and events of a round whose `applied` writes landed. */
  observe(
    p: Plan,
    nodes: readonly NodeSnapshot[],
    world: World,
    applied: readonly NodeWrite[],
    now: number,
  ): void {
    const { metrics, events } = this.deps;
    if (metrics) this.countNodes(metrics, p, nodes);
    for (const write of applied) {
      const group = p.membership[write.node] ?? '';
      if (write.actions.includes('Granted')) metrics?.grants.inc({ group });
      const snapshot = nodes.find((n) => n.name === write.node);
      if (write.actions.includes('Released') && snapshot) {
        const grantedAt = snapshotFacts(snapshot, this.protocol).grantedAt;
        if (grantedAt !== undefined)
          metrics?.rebootDuration.observe({ group }, Math.max(0, now - grantedAt) / 1000);
      }
      if (write.actions.includes('HookTimedOut')) metrics?.hookTimeouts.inc({ group, hooks: 'before' });
      if (write.actions.includes('MarkedFailed')) {
        const reason = (write.setAnnotations[coordinatorKeys.failed] ?? '').split(' ')[0] || 'Unknown';
        metrics?.verificationFailures.inc({ group, reason });
        if (reason === 'AfterRebootHooksTimedOut') metrics?.hookTimeouts.inc({ group, hooks: 'after' });
      }
    }
    if (!events) return;
    const landed = new Set(applied.map((w) => w.node));
    for (const e of p.events) {
      const node = landed.has(e.node) ? world.nodes.find((n) => n.metadata.name === e.node) : undefined;
      if (node) events.record(Node, node, { type: e.type, reason: e.reason, action: 'Reboot', note: e.note });
    }
  }

  /** Warning findings as events, once each while they last. */
  reportFindings(world: World, p: Plan): void {
    const current = new Set<string>();
    for (const f of p.findings) {
      if (f.severity !== 'Warning') continue;
      const key = `${f.kind}|${f.node ?? ''}|${f.group ?? ''}|${f.key ?? ''}|${f.message}`;
      current.add(key);
      if (this.reported.has(key)) continue;
      this.deps.logger?.warn({ finding: f }, f.message);
      const events = this.deps.events;
      if (!events) continue;
      const node = f.node ? world.nodes.find((n) => n.metadata.name === f.node) : undefined;
      const group = f.group ? world.groups.find((g) => g.metadata.name === f.group) : undefined;
      const input = { type: 'Warning' as const, reason: f.kind, action: 'Plan', note: f.message };
      if (node) events.record(Node, node, input);
      else if (group) events.record(RebootGroupType, group, input);
    }
    this.reported = current;
  }

  private countNodes(metrics: CoordinatorMetrics, p: Plan, nodes: readonly NodeSnapshot[]): void {
    const counts = new Map<string, Record<NodeState, number>>();
    for (const g of Object.keys(p.groupStatus)) {
      counts.set(g, Object.fromEntries(NODE_STATES.map((s) => [s, 0])) as Record<NodeState, number>);
    }
    for (const n of nodes) {
      const group = p.membership[n.name];
      const c = group === undefined ? undefined : counts.get(group);
      if (!c) continue;
      const f = snapshotFacts(n, this.protocol);
      c[f.setAside ? 'setaside' : f.failed ? 'failed' : (f.phase.toLowerCase() as NodeState)]++;
    }
    metrics.nodes.reset();
    for (const [group, c] of counts)
      for (const state of NODE_STATES) metrics.nodes.set(c[state], { group, state });
  }
}
