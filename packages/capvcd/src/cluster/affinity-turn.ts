/**
 * The anti-affinity rules' turn in a VCDCluster reconcile: look ({@link lookAtAffinity}), publish
 * our rules and the `AntiAffinityRulesReady` condition, and make at most one write, its task
 * recorded (never awaited). A VCD fault of the rules is said in their condition, not in the load
 * balancer's nor in Ready (the cluster works without them), and backs off as any VCD fault.
 */
import type { Client, EventRecorder, Result } from '@capstan/runtime';
import { CLUSTER_NAME_LABEL, Conditions } from '../api/keys.js';
import {
  type VCDCluster,
  type VCDClusterStatus,
  VCDClusterType,
  type VCDMachine,
  VCDMachineType,
} from '../api/types.js';
import { condition } from '../status.js';
import type { RecordedTasks } from '../tasks.js';
import type { Connection } from '../vcd/connections.js';
import { AFFINITY_OPERATIONS, type AffinityLook, affinityRuleOf, lookAtAffinity } from './affinity.js';

/** What the turn needs of its reconciler. */
export interface AffinityTurnDeps {
  client: Client;
  events: EventRecorder;
  tasks: RecordedTasks;
  /** Whether a task was recorded meanwhile (a write then waits: none is repeated). */
  recordedMeanwhile: (vcdCluster: VCDCluster, endedHref: string | undefined) => Promise<boolean>;
}

/** What the turn did: a write (or a wait for one) ends the reconcile with `result`; else it goes on. */
export type AffinityTurnResult = { done: true; result: Result } | { done: false };

const affinityFaults = new WeakSet<object>();

/**
 * Whether an error of the reconcile is the rules' (a look or write of this turn, or the failed
 * task of one, by the operation recorded with it).
 */
export const isAffinityFault = (err: unknown, recordedOperation: string | undefined): boolean =>
  (typeof err === 'object' && err !== null && affinityFaults.has(err)) ||
  AFFINITY_OPERATIONS.has(recordedOperation ?? '');

/** Sets or clears the rules' condition from a look. */
function affinityCondition(status: VCDClusterStatus, vcdCluster: VCDCluster, look: AffinityLook | undefined) {
  const off = !vcdCluster.spec.antiAffinity && (!look || look.rules.length === 0);
  if (!look || (off && look.step.kind === 'Converged')) {
    // Off and no rule left: the condition goes too.
    status.conditions = status.conditions?.filter((c) => c.type !== Conditions.AntiAffinityRulesReady);
    return;
  }
  const converged = look.step.kind === 'Converged';
  const rules = look.rules.map((r) => `${r.name} (${r.members?.length ?? 0} VMs)`).join(', ') || 'none';
  condition(
    status,
    vcdCluster,
    Conditions.AntiAffinityRulesReady,
    converged,
    converged ? 'Converged' : look.step.kind,
    converged ? `rules: ${rules}` : `next: ${look.step.kind} ${affinityRuleOf(look.step)}`,
  );
}

/** One turn of the rules. */
export async function affinityTurn(
  deps: AffinityTurnDeps,
  connection: Connection,
  vcdCluster: VCDCluster,
  clusterName: string,
  status: VCDClusterStatus,
  endedHref: string | undefined,
  machines?: VCDMachine[],
): Promise<AffinityTurnResult> {
  const { client, tasks } = deps;
  const namespace = vcdCluster.metadata.namespace as string;
  machines ??= (
    await client.list(VCDMachineType, { namespace, labelSelector: `${CLUSTER_NAME_LABEL}=${clusterName}` })
  ).items;
  try {
    const look = await lookAtAffinity(client, connection, vcdCluster, clusterName, machines);
    if (look?.rules.length) status.affinityRules = look.rules;
    else delete status.affinityRules;
    affinityCondition(status, vcdCluster, look);
    if (!look?.write) return { done: false };
    if (await deps.recordedMeanwhile(vcdCluster, endedHref))
      return { done: true, result: { requeueAfter: tasks.polling.minMs } };
    const task = await look.write();
    if (task.href) status.task = tasks.record(task, look.step.kind);
    deps.events.record(VCDClusterType, vcdCluster, {
      type: 'Normal',
      reason: look.step.kind,
      action: look.step.kind,
      note: affinityRuleOf(look.step),
    });
    return {
      done: true,
      result: status.task ? { requeueAfter: tasks.polling.minMs } : { requeue: true },
    };
  } catch (err) {
    if (typeof err === 'object' && err !== null) affinityFaults.add(err);
    throw err;
  }
}
