/**
 * The RebootStack reconciler: read the stack, validate it, take the migration step if one runs,
 * render the version's manifests, apply the coordinator's and (once the coordinator has rolled
 * out) the agent's, prune what the version no longer has, create the default RebootGroups, and
 * report. On deletion it removes what it created, unless the stack says to orphan it.
 */

import type { ProtocolName } from '@capstan/reboot-protocol';
import {
  addFinalizer,
  type Client,
  type Condition,
  hasFinalizer,
  isNotFound,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  removeFinalizer,
  setCondition,
  writeStatusIfChanged,
} from '@capstan/runtime';
import { DaemonSet, Deployment } from '@capstan/runtime/client';
import {
  type ComponentName,
  type MigrationStatus,
  type RebootStack,
  type RebootStackStatus,
  RebootStackType,
  STACK_FINALIZER,
  VERSION_OPERATOR_MANAGER,
} from './api/reboot-stack.js';
import { type StackProblem, validateStack } from './api/validation.js';
import { applyObjects, deleteStackObjects, pruneObjects } from './applier.js';
import type { Catalogue, CatalogueEntry } from './catalogue.js';
import { defaultRebootGroups, RebootGroupKind } from './decide/default-groups.js';
import { startMigration } from './decide/migration.js';
import { DEFAULT_MIGRATION_STALL_MS, migrationStall, trackWait } from './decide/migration-stall.js';
import { objectKey, type RenderedObject, renderStack, workloadOf } from './decide/render.js';
import { componentStatus, type Rollout, rolloutOf, type WorkloadObject } from './decide/rollout.js';
import { stackConditions } from './decide/status.js';
import { planUpgrade } from './decide/upgrade.js';
import { migrationRound } from './migration-driver.js';

/** How often a stack is looked at again while something rolls out, by default. */
export const DEFAULT_ROLLOUT_POLL_MS = 2_000;

/** How a {@link RebootStackReconciler} times what it waits for. */
export interface ReconcilerTiming {
  /** How often a stack is looked at again while something rolls out (events come sooner). */
  rolloutPollMs?: number;
  /** How long a migration may wait on one thing before it is reported stalled. */
  migrationStallMs?: number;
  now?: () => Date;
}

/** Keeps each RebootStack's coordinator and agent at the desired version. */
export class RebootStackReconciler implements Reconciler {
  private readonly pollMs: number;
  private readonly stallMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly client: Client,
    private readonly catalogue: Catalogue,
    timing: ReconcilerTiming = {},
  ) {
    this.pollMs = timing.rolloutPollMs ?? DEFAULT_ROLLOUT_POLL_MS;
    this.stallMs = timing.migrationStallMs ?? DEFAULT_MIGRATION_STALL_MS;
    this.now = timing.now ?? (() => new Date());
  }

  async reconcile(request: Request, { log }: ReconcileContext): Promise<Result | undefined> {
    let stack: RebootStack;
    try {
      // Read from the server, not the cache: the status carries the migration's memory (which
      // groups it paused), and a cache one write behind would make it forget a pause it made.
      stack = await this.client.get(RebootStackType, { name: request.name }, { direct: true });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    if (stack.metadata.deletionTimestamp) return this.finalize(stack);
    if (!hasFinalizer(stack, STACK_FINALIZER)) {
      stack = await addFinalizer(this.client, RebootStackType, stack, STACK_FINALIZER);
    }
    const status: RebootStackStatus = { ...stack.status };
    const problems = validateStack(stack, this.catalogue, {
      version: status.observedVersion,
      protocol: status.migration ? status.migration.from : status.observedProtocol,
    });
    if (problems.length > 0) {
      log.info({ problems }, 'stack refused');
      // What runs keeps running: Available still says so, Degraded says why nothing changes.
      await this.report(stack, { ...status }, problems, {
        complete: false,
        agentNodes: status.agent?.desired ?? 0,
      });
      return undefined;
    }
    const entry = this.catalogue.get(stack.spec.version);
    if (!entry) return undefined; // validateStack refused it already
    const protocol: ProtocolName = stack.spec.protocol ?? 'capstan';

    // A protocol switch on a live stack is a migration; a fresh stack just starts on its protocol.
    let migration =
      status.migration ??
      (status.observedProtocol && status.observedProtocol !== protocol
        ? startMigration(status.observedProtocol, protocol)
        : undefined);
    let protocols: Record<ComponentName, ProtocolName> = { coordinator: protocol, agent: protocol };
    let stopCoordinator = false;
    let progress: { reason: string; message: string } | undefined;
    const probe = renderStack(entry, stack);
    if (migration) {
      const step = await migrationRound(this.client, migration, {
        version: entry.version,
        coordinator: await this.read(probe, 'coordinator'),
        agent: (await this.read(probe, 'agent')) as never,
      });
      if (step.mirrored > 0) log.info({ mirrored: step.mirrored, phase: migration.phase }, 'nodes mirrored');
      progress = { reason: `Migrating${migration.phase}`, message: step.waiting ?? 'migration step taken' };
      // Over: both components speak the new protocol now, so no new migration starts from the old one.
      if (!step.migration) status.observedProtocol = migration.to;
      migration = trackWait(migration, step.migration, step.waiting, this.now());
      protocols = step.protocols;
      stopCoordinator = step.stopCoordinator;
    }

    try {
      return await this.rollOut(
        stack,
        entry,
        status,
        { migration, protocols, stopCoordinator, progress },
        log,
      );
    } catch (err) {
      // Say why in the status, then let the controller retry with backoff.
      const message = err instanceof Error ? err.message : String(err);
      await this.report(stack, status, [{ reason: 'ApplyFailed', message }], {
        complete: false,
        agentNodes: status.agent?.desired ?? 0,
      });
      throw err;
    }
  }

  private async rollOut(
    stack: RebootStack,
    entry: CatalogueEntry,
    status: RebootStackStatus,
    round: {
      migration: MigrationStatus | undefined;
      protocols: Record<ComponentName, ProtocolName>;
      stopCoordinator: boolean;
      progress: { reason: string; message: string } | undefined;
    },
    log: ReconcileContext['log'],
  ): Promise<Result | undefined> {
    const { migration, protocols, stopCoordinator } = round;
    let progress = round.progress;
    const name = stack.metadata.name as string;
    const protocol: ProtocolName = stack.spec.protocol ?? 'capstan';
    const rendered = renderStack(entry, stack, protocols);
    if (stopCoordinator) {
      const coordinator = workloadOf(rendered, 'coordinator') as { spec: { replicas?: number } } | undefined;
      if (coordinator) coordinator.spec.replicas = 0;
    }
    const rollouts: Partial<Record<ComponentName, Rollout>> = {};
    rollouts.coordinator = await this.applyComponent(rendered, 'coordinator');
    const existingAgent = await this.read(rendered, 'agent');
    rollouts.agent = existingAgent && rolloutOf(existingAgent);
    const target = { version: entry.version, protocols };
    let plan = planUpgrade(target, rollouts);
    if (plan.apply.includes('agent')) {
      rollouts.agent = await this.applyComponent(rendered, 'agent');
      // This round's apply counts: a changed agent template (new flags, say) is a rollout under way.
      plan = { ...planUpgrade(target, rollouts), apply: plan.apply };
    }
    if (plan.prune && !migration) {
      const pruned = await pruneObjects(this.client, name, new Set(rendered.map((r) => objectKey(r.object))));
      if (pruned.length > 0) log.info({ pruned }, 'pruned objects the version no longer has');
    }
    if (plan.phase !== 'Complete' && !progress) {
      progress = { reason: plan.phase, message: rolloutMessage(plan.phase, rollouts) };
    }
    if (plan.phase === 'Complete' && stack.spec.defaultRebootGroups !== false)
      await this.ensureDefaultGroups(name, stack.spec.workersMaxUnavailable);

    const complete = plan.phase === 'Complete' && !migration;
    const now = this.now();
    const next: RebootStackStatus = {
      ...status,
      coordinator: componentStatus(rollouts.coordinator, false, status.coordinator, now),
      agent: componentStatus(rollouts.agent, !plan.apply.includes('agent'), status.agent, now),
      migration,
    };
    if (!migration) delete next.migration;
    if (complete) {
      next.observedVersion = entry.version;
      next.observedProtocol = protocol;
    }
    // A stalled migration goes on as it is (groups paused, nodes mirrored); it is reported, not undone.
    const stall = migrationStall(migration, now, this.stallMs);
    if (stall) log.info({ stall: stall.message }, 'migration stalled');
    const problems = stall ? [stall] : [];
    await this.report(stack, next, problems, {
      complete,
      progress,
      agentNodes: rollouts.agent?.desired ?? 0,
    });
    return complete ? undefined : { requeueAfter: this.pollMs };
  }

  /** Reads a component's workload as it stands (undefined when absent). */
  private async read(
    rendered: readonly RenderedObject[],
    component: ComponentName,
  ): Promise<WorkloadObject | undefined> {
    const workload = workloadOf(rendered, component);
    if (!workload) return undefined;
    const type = component === 'coordinator' ? Deployment : DaemonSet;
    try {
      const key = { namespace: workload.metadata.namespace, name: workload.metadata.name };
      return (await this.client.get(type as never, key, { direct: true })) as WorkloadObject;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async applyComponent(
    rendered: readonly RenderedObject[],
    component: ComponentName,
  ): Promise<Rollout | undefined> {
    const objects = rendered.filter((r) => r.component === component).map((r) => r.object);
    const applied = await applyObjects(this.client, objects);
    const workload = applied.find((o) => o.kind === 'Deployment' || o.kind === 'DaemonSet');
    return workload && rolloutOf(workload as WorkloadObject);
  }

  private async ensureDefaultGroups(stack: string, workersMaxUnavailable?: number | string): Promise<void> {
    const { items } = await this.client.list(RebootGroupKind, { direct: true, limit: 1 });
    if (items.length > 0) return;
    for (const group of defaultRebootGroups(stack, workersMaxUnavailable)) {
      await this.client.apply(RebootGroupKind, group, { fieldManager: VERSION_OPERATOR_MANAGER });
    }
  }

  private async finalize(stack: RebootStack): Promise<Result | undefined> {
    if (!hasFinalizer(stack, STACK_FINALIZER)) return undefined;
    if ((stack.spec.deletionPolicy ?? 'Delete') === 'Delete') {
      const left = await deleteStackObjects(this.client, stack.metadata.name as string);
      if (left > 0) return { requeueAfter: this.pollMs };
    }
    await removeFinalizer(this.client, RebootStackType, stack, STACK_FINALIZER);
    return undefined;
  }

  private async report(
    stack: RebootStack,
    next: RebootStackStatus,
    problems: readonly StackProblem[],
    state: { complete: boolean; progress?: { reason: string; message: string }; agentNodes: number },
  ): Promise<void> {
    const serving = next.coordinator?.rollout === 'Complete' && next.agent?.rollout === 'Complete';
    let conditions: Condition[] | undefined = stack.status?.conditions;
    for (const c of stackConditions({ generation: stack.metadata.generation, problems, serving, ...state })) {
      conditions = setCondition(conditions, c, this.now());
    }
    const status: RebootStackStatus = { ...next, observedGeneration: stack.metadata.generation, conditions };
    // The stack was read from the server (or is addFinalizer's answer): a 409 means it changed since.
    await writeStatusIfChanged(this.client, RebootStackType, stack, status, {
      clock: { now: () => this.now().getTime() },
    });
  }
}

function rolloutMessage(phase: string, rollouts: Partial<Record<ComponentName, Rollout>>): string {
  const r = phase === 'RollingOutCoordinator' ? rollouts.coordinator : rollouts.agent;
  const what = phase === 'RollingOutCoordinator' ? 'coordinator' : 'agent';
  return `${what}: ${r?.updated ?? 0} of ${r?.desired ?? 0} updated, ${r?.available ?? 0} available`;
}
