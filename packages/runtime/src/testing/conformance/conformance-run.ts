/**
 * One run of a scenario under one schedule: a fake cluster on a virtual clock, the controller
 * process (restarted after each crash), the user's actions, and the checks.
 */

import type { ResourceType } from '../../api/types.js';
import { Event } from '../../client/builtin.js';
import { Client } from '../../client/client.js';
import { createLogger } from '../../log/logger.js';
import { Manager } from '../../manager/manager.js';
import { FakeCluster } from '../fake-cluster.js';
import { ManualClock } from '../manual-clock.js';
import { type CommittedWrite, ControllerProcess } from './controller-process.js';
import { collectGarbage } from './garbage-collector.js';
import type { ConformanceScenario, ConformanceUser, WorldCheck } from './scenario.js';
import type { Perturbation, Schedule } from './schedule.js';

/** How long a crashed process stays down before it starts again. */
const RESTART_DELAY_MS = 1_000;
/** The granularity at which virtual time moves while the controller runs. */
const TICK_MS = 100;

interface Running {
  readonly process: ControllerProcess;
  readonly stop: AbortController;
  readonly done: Promise<void>;
}

/** A created object, to find it again after teardown. */
interface Created {
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly uid: string | undefined;
}

/** The harness's state for one run; {@link ConformanceRun.violation} is the first failure seen. */
export class ConformanceRun {
  readonly clock = new ManualClock();
  readonly cluster: FakeCluster;
  readonly user: ConformanceUser;
  violation: string | undefined;
  private current: Running | undefined;
  private readonly stopped: Array<Promise<void>> = [];
  private readonly created: Created[] = [];
  private readonly types: ResourceType[];
  private randomState = 1;
  private restartTimer = false;
  /** A stale window outlives a crash: a process started during it lists the same old snapshot. */
  private staleWindow: { readonly at: string } | undefined;

  constructor(private readonly scenario: ConformanceScenario) {
    this.types = scenario.kinds.map((k) => (Array.isArray(k) ? k[0] : k) as ResourceType);
    const kinds = scenario.kinds.map((k) => (Array.isArray(k) ? [k[0], k[1]] : k)) as Array<
      ResourceType | [ResourceType, object]
    >;
    this.cluster = new FakeCluster({ clock: this.clock, kinds: [...kinds, Event] });
    this.user = {
      cluster: this.cluster,
      clock: this.clock,
      client: new Client(this.cluster),
      killController: () => this.current?.process.kill(),
    };
  }

  /** The process now running (undefined while a crashed one waits to restart). */
  get process(): ControllerProcess | undefined {
    return this.current?.process.dead ? undefined : this.current?.process;
  }

  /** Starts a fresh process: a new manager, wired by the scenario's set-up, over a new transport. */
  async startProcess(): Promise<ControllerProcess> {
    const process = new ControllerProcess(
      this.cluster,
      (write) => this.afterWrite(write),
      () => this.afterDeath(),
    );
    const manager = Manager.create({
      ...this.scenario.manager,
      transport: process,
      clock: this.clock,
      logger: createLogger({ level: 'silent' }),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      gracefulShutdownTimeoutMs: 5_000,
      cache: { ...this.scenario.manager?.cache, random: () => this.random() },
    });
    if (this.staleWindow) process.startStale(this.staleWindow.at);
    await this.scenario.setup(manager, { clock: this.clock });
    const stop = new AbortController();
    const done = manager.start(stop.signal).catch((err: unknown) => {
      if (!process.dead && !stop.signal.aborted) this.fail(`the manager failed: ${String(err)}`);
    });
    this.current = { process, stop, done };
    return process;
  }

  /** Applies one perturbation to the running process (a jump moves the clock for everyone). */
  async perturb(p: Perturbation): Promise<void> {
    const process = this.process;
    switch (p.kind) {
      case 'crash':
        process?.crashAfterWrites(p.afterWrites);
        return;
      case 'stale':
        process?.atWrite(p.afterWrites, () => {
          const window = { at: this.cluster.currentResourceVersion() };
          this.staleWindow = window;
          process.startStale(window.at);
          this.clock.setTimeout(() => {
            if (this.staleWindow === window) this.staleWindow = undefined;
            process.endStale(p.end);
            if (this.current && this.current.process !== process) this.current.process.endStale(p.end);
          }, p.forMs);
        });
        return;
      case 'answer':
        process?.inject(p.verb, p.nth, p.answer);
        return;
      case 'jump':
        await this.clock.advanceAsync(p.ms);
        await this.collectGarbage();
    }
  }

  /** Lets the controller (and the garbage collector) run for `ms` of virtual time. */
  async run(ms: number): Promise<void> {
    for (let t = 0; t < ms && this.violation === undefined; t += TICK_MS) {
      await this.clock.advanceAsync(TICK_MS);
      await this.scenario.tick?.(this.user);
      await this.collectGarbage();
      this.checkInvariants('while the controller runs');
    }
  }

  /** Runs until `check` holds or `ms` of virtual time pass; answers its last result. */
  async runUntil(check: WorldCheck, ms: number): Promise<boolean | string> {
    let result = check(this.cluster);
    for (let t = 0; t < ms && result !== true && this.violation === undefined; t += TICK_MS) {
      await this.run(TICK_MS);
      result = check(this.cluster);
    }
    return result;
  }

  /** Stops perturbing: no more crashes or injected answers, a dead process starts again. */
  async calm(): Promise<void> {
    this.staleWindow = undefined;
    this.current?.process.calm();
    if (!this.process) await this.startProcess();
  }

  /** Kills the running process (as a crash) and starts a fresh one at once. */
  async restart(): Promise<ControllerProcess> {
    this.current?.process.kill();
    return this.startProcess();
  }

  /** Checks every invariant; records the first violation. */
  checkInvariants(when: string): void {
    if (this.violation !== undefined) return;
    for (const [name, check] of Object.entries(this.scenario.invariants ?? {})) {
      const result = check(this.cluster);
      if (result !== true) {
        this.fail(`invariant "${name}" broken ${when}${typeof result === 'string' ? `: ${result}` : ''}`);
        return;
      }
    }
  }

  /** Objects the controller created that still exist (same uid), Events aside. */
  leftovers(): string[] {
    return this.created
      .filter((c) => c.type !== Event)
      .filter((c) => {
        const o = this.cluster.getObject(c.type, { namespace: c.namespace, name: c.name });
        return o !== undefined && (c.uid === undefined || o.metadata.uid === c.uid);
      })
      .map((c) => `${c.type.kind} ${c.namespace ? `${c.namespace}/` : ''}${c.name}`);
  }

  /** Objects being deleted whose delete has not completed (a finalizer never removed). */
  terminating(): string[] {
    return this.types.flatMap((t) =>
      this.cluster
        .objects(t)
        .filter((o) => o.metadata.deletionTimestamp !== undefined)
        .map((o) => `${t.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`),
    );
  }

  fail(message: string): void {
    this.violation ??= message;
  }

  /** Stops the running process and waits, on virtual time, for every process to have stopped. */
  async shutdown(): Promise<void> {
    this.current?.process.kill();
    await this.clock.advanceUntilSettled(Promise.all(this.stopped), 1_000);
  }

  private afterWrite(write: CommittedWrite): void {
    if (write.created) {
      const o = write.answer as { metadata?: { namespace?: string; name?: string; uid?: string } };
      this.created.push({
        type: write.type,
        namespace: o.metadata?.namespace,
        name: o.metadata?.name ?? '',
        uid: o.metadata?.uid,
      });
    }
    this.checkInvariants(`by the controller's ${write.verb} of ${write.type.kind} ${write.key?.name ?? ''}`);
  }

  /** A crash: the manager is stopped (its transport already refuses everything); restart later. */
  private afterDeath(): void {
    const running = this.current;
    if (!running) return;
    running.stop.abort();
    this.stopped.push(running.done);
    if (this.restartTimer) return;
    this.restartTimer = true;
    this.clock.setTimeout(() => {
      this.restartTimer = false;
      if (this.current === running && this.violation === undefined)
        this.startProcess().catch((err: unknown) => this.fail(`the restart failed: ${String(err)}`));
    }, RESTART_DELAY_MS);
  }

  private async collectGarbage(): Promise<void> {
    await collectGarbage(this.cluster, this.types);
  }

  // mulberry32, seeded per run: the informers' jitter, so a run replays exactly.
  private random(): number {
    this.randomState = (this.randomState + 0x6d2b79f5) | 0;
    let t = this.randomState;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** Runs one schedule and answers the first violation, or undefined when every check passed. */
export async function runSchedule(
  scenario: ConformanceScenario,
  schedule: Schedule,
): Promise<string | undefined> {
  const run = new ConformanceRun(scenario);
  try {
    await scenario.world?.(run.user);
    await run.startProcess();
    await perturbedPhase(run, scenario, schedule);
    if (run.violation === undefined) await checkedPhases(run, scenario);
  } catch (err) {
    run.fail(`the run threw: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  } finally {
    await run.shutdown();
  }
  return run.violation;
}

async function perturbedPhase(run: ConformanceRun, scenario: ConformanceScenario, schedule: Schedule) {
  const step = scenario.stepMs ?? 3_000;
  for (let i = 0; i <= scenario.actions.length && run.violation === undefined; i++) {
    for (const p of schedule.slots[i] ?? []) await run.perturb(p);
    await run.run(step);
    const action = scenario.actions[i];
    if (action && run.violation === undefined) {
      await action.run(run.user);
      run.checkInvariants(`after the user's "${action.name}"`);
    }
  }
}

/** Convergence, idempotence of a converged reconcile, then teardown without leaks. */
async function checkedPhases(run: ConformanceRun, scenario: ConformanceScenario) {
  const settle = scenario.settleMs ?? 600_000;
  await run.calm();
  const converged = await run.runUntil(scenario.converged, settle);
  if (run.violation !== undefined) return;
  if (converged !== true) {
    run.fail(`did not converge within ${settle} ms${typeof converged === 'string' ? `: ${converged}` : ''}`);
    return;
  }
  // A fresh process over the converged world: its reconciles must find nothing to do.
  await run.run(scenario.stepMs ?? 3_000);
  const fresh = await run.restart();
  await run.run(Math.max(10_000, scenario.stepMs ?? 0));
  if (fresh.writeRequests.length > 0) {
    run.fail(`a converged reconcile wrote: ${fresh.writeRequests.join('; ')}`);
    return;
  }
  const stillConverged = scenario.converged(run.cluster);
  if (stillConverged !== true) {
    run.fail(
      `the world left convergence after a restart${typeof stillConverged === 'string' ? `: ${stillConverged}` : ''}`,
    );
    return;
  }
  if (!scenario.teardown) return;
  await scenario.teardown.run(run.user);
  const released = () => scenario.released?.(run.cluster) ?? true;
  const clean = () => run.leftovers().length === 0 && run.terminating().length === 0 && released() === true;
  if ((await run.runUntil(clean, settle)) === true || run.violation !== undefined) return;
  const stuck = run.terminating();
  const still = released();
  if (stuck.length > 0)
    run.fail(`after "${scenario.teardown.name}", deletes never completed: ${stuck.join(', ')}`);
  else if (run.leftovers().length > 0)
    run.fail(`after "${scenario.teardown.name}", left behind: ${run.leftovers().join(', ')}`);
  else
    run.fail(
      `after "${scenario.teardown.name}", not released${typeof still === 'string' ? `: ${still}` : ''}`,
    );
}
