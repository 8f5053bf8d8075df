import { hostname } from 'node:os';
import { InformerCache } from '../cache/informer-cache.js';
import { Client } from '../client/client.js';
import { type Clock, realClock, settlesWithin } from '../clock.js';
import type { ControllerBuilder } from '../controller/builder.js';
import type { Controller } from '../controller/controller.js';
import { Permissions } from '../controller/permissions.js';
import { EventRecorder } from '../helpers/event-recorder.js';
import { createLogger, type Logger } from '../log/logger.js';
import { HttpTransport } from '../transport/http-transport.js';
import type { ApiTransport } from '../transport/transport.js';
import { webhookMetrics } from '../webhook/metrics.js';
import { WebhookServer } from '../webhook/server.js';
import { InformerHealthChecks } from './informer-health.js';
import { LeaderElector } from './leaderelection/leader-elector.js';
import { ManagedControllerBuilder } from './managed-builder.js';
import type { ManagerOptions } from './manager-options.js';
import { MetricsRegistry } from './metrics-registry.js';
import { EVENTS_PERMISSION, managerPermissions } from './permissions.js';
import { type Check, ProbesServer, type ProbesServerPorts } from './probes-server.js';
import type { Runnable, RunnableScope } from './runnable.js';
import { secureMetricsServing } from './secure-metrics/secure-metrics.js';

export type { LeaderElectionOptions, ManagerOptions } from './manager-options.js';

/** The lease was lost while leading; the process should exit non-zero. */
export class LeadershipLostError extends Error {
  override readonly name = 'LeadershipLostError';
}

/**
 * Runs an operator: the client, shared cache, event recorder, logger and metrics, as fields that
 * reconcilers take through their constructors (no container: plain constructors and reconcile
 * functions both work, and a DI container of the user's choice can be fed from these fields);
 * controllers built from it; leader election; `/metrics`, `/healthz` and `/readyz`; and a
 * graceful stop. An operator's `main` is a few lines:
 *
 * @example
 * const manager = Manager.create({ kubeConfig, leaderElection: { id: 'widgets', namespace: 'ops' } });
 * manager.controllerBuilder().for(Widget).owns(ConfigMap).build(new WidgetReconciler(manager.client));
 * await runManager(manager); // SIGTERM stops it gracefully
 */
export class Manager {
  /** The transport every part of this manager speaks through (the test kit's FakeCluster in unit tests). */
  readonly transport: ApiTransport;
  /** The client reconcilers use: reads from the shared cache, writes to the server. */
  readonly client: Client;
  /** The shared informer cache: one informer per kind and restriction, for every controller. */
  readonly cache: InformerCache;
  readonly logger: Logger;
  /** The registry behind `/metrics`; operators register their own series on it. */
  readonly metrics: MetricsRegistry;
  /** What this manager's operator needs (RBAC): its controllers, its parts, what code declares. */
  readonly permissions = new Permissions();
  private readonly recorder: EventRecorder;
  /** Set when leader election is on. */
  readonly elector: LeaderElector | undefined;
  /** Admission and conversion webhooks; served on every replica once something is registered. */
  readonly webhooks: WebhookServer;
  private readonly probes: ProbesServer;
  private readonly informerHealth: InformerHealthChecks;
  private readonly runnables: Array<{ runnable: Runnable; scope: RunnableScope }> = [];
  private readonly controllers: Controller[] = [];
  /**
   * The clock everything this manager runs waits and measures on (`options.clock`, else the real
   * one): reconcilers that stamp times (condition transitions, deadlines) take it from here, so a
   * test on a `ManualClock` moves them all.
   */
  readonly clock: Clock;
  private started = false;
  private ports: ProbesServerPorts = {};
  private onStartedLeading: ((leadership: AbortSignal) => void) | undefined;

  private constructor(private readonly options: ManagerOptions) {
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? createLogger({ level: options.logLevel, format: options.logFormat });
    this.metrics = new MetricsRegistry();
    if (options.transport) this.transport = options.transport;
    else if (options.kubeConfig) {
      this.transport = new HttpTransport(options.kubeConfig, {
        onRequest: (r) => this.metrics.onRestRequest({ method: r.method, code: r.code, host: r.host }),
        onWarning: (text) => this.logger.warn({ warning: text }, 'the API server warned'),
      });
    } else throw new Error('Manager needs a kubeConfig or a transport');
    this.cache = new InformerCache(this.transport, {
      logger: this.logger.child({ component: 'cache' }),
      ...options.cache,
      clock: this.clock,
    });
    this.client = new Client(this.transport, {
      cache: this.cache,
      clock: this.clock,
      fieldManager: options.fieldManager ?? 'capstan',
      readYourWrites: options.readYourWrites,
    });
    const le = options.leaderElection;
    this.elector = le
      ? new LeaderElector(this.transport, {
          ...le, // its settings by the same names, but the Lease's `id`
          name: le.id,
          clock: this.clock,
          metrics: this.metrics,
          logger: this.logger,
          onStartedLeading: (leadership) => this.onStartedLeading?.(leadership),
        })
      : undefined;
    for (const permission of managerPermissions(options)) this.permissions.add(permission);
    this.recorder = new EventRecorder(this.client, {
      controller: options.eventSource ?? 'capstan',
      instance: this.elector?.identity ?? hostname(),
      clock: this.clock,
      logger: this.logger,
    });
    this.probes = new ProbesServer({
      metrics: this.metrics,
      metricsBindAddress: options.metricsBindAddress ?? ':8080',
      metricsSecure:
        options.metricsSecure &&
        secureMetricsServing(options.metricsSecure, this.transport, this.logger, this.clock),
      healthProbeBindAddress: options.healthProbeBindAddress ?? ':8081',
      enableDebugEndpoint: options.enableDebugEndpoint ?? false,
      debugBindAddress: options.debugBindAddress ?? '0',
      logger: this.logger,
    });
    this.probes.addHealthCheck('ping', () => true);
    const threshold = options.informerFailureThresholdMs ?? 120_000;
    this.informerHealth = new InformerHealthChecks(this.cache, this.probes, this.metrics, threshold);
    this.webhooks = new WebhookServer({
      ...options.webhook,
      metrics: webhookMetrics(this.metrics.registry),
      logger: this.logger,
    });
    this.probes.addReadyCheck('webhook', () => !this.webhooks.hasHandlers || this.webhooks.checkStarted());
    this.probes.setDebugProvider(() =>
      Object.fromEntries(this.controllers.map((c) => [c.name, c.queue.snapshot()])),
    );
  }

  /** Records `events.k8s.io/v1` Events as this manager's `eventSource`; taking it adds their RBAC. */
  get events(): EventRecorder {
    this.permissions.add({ ...EVENTS_PERMISSION, ...this.options.eventsScope });
    return this.recorder;
  }

  /** Builds a manager. Nothing runs until {@link Manager.start}. */
  static create(options: ManagerOptions): Manager {
    return new Manager(options);
  }

  /** A builder of controllers with this manager's cache, logger, metrics and namespace(s), run on the leader. */
  controllerBuilder(): ControllerBuilder {
    return new ManagedControllerBuilder(
      this,
      this.cache,
      {
        logger: this.logger,
        clock: this.clock,
        reader: this.client,
        permissions: this.permissions,
        metricsFor: (name: string) => ({
          controller: this.metrics.controllerMetrics(name),
          queue: this.metrics.workQueueMetrics(name, name),
        }),
      },
      { namespace: this.options.namespace, namespaces: this.options.namespaces },
    );
  }

  /** Registers a controller (the managed builder does this for you). */
  addController(controller: Controller): void {
    if (this.started) throw new Error('add controllers before start');
    this.controllers.push(controller);
    this.metrics.registerQueue(controller, controller.name);
    this.add(
      {
        name: controller.name,
        start: async (signal) => {
          await controller.start(signal);
        },
      },
      'leader',
    );
  }

  /**
   * Adds a runnable: `leader` (default) runs only while leading, `always` on every replica, both
   * once the caches have synced; `server` on every replica from the start (see {@link RunnableScope}).
   */
  add(runnable: Runnable, scope: RunnableScope = 'leader'): void {
    if (this.started) throw new Error('add runnables before start');
    this.runnables.push({ runnable, scope });
  }

  addHealthCheck(name: string, check: Check): void {
    this.probes.addHealthCheck(name, check);
  }

  addReadyCheck(name: string, check: Check): void {
    this.probes.addReadyCheck(name, check);
  }

  /** Ports the servers listen on, once started (0 ports resolved). */
  get listening(): ProbesServerPorts {
    return this.ports;
  }

  /**
   * Starts the probes server and the `server` runnables, then the caches; once they have synced,
   * runs the other runnables (the leader-only ones once the lease is won) until `signal` aborts.
   * Then stops gracefully: stops taking work, lets in-flight reconciles finish (up to the graceful
   * timeout), releases the lease, stops the caches and servers, and resolves. Rejects if a runnable fails or, with
   * `onLoss: 'exit'`, with {@link LeadershipLostError} when the lease is lost.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error('a manager starts once');
    this.started = true;
    this.ports = await this.probes.start();
    this.logger.info({ ports: this.ports }, 'manager starting');
    const failure = new AbortController(); // aborted with the reason the manager must stop early
    const stopAll = AbortSignal.any([signal, failure.signal]);
    const running: Array<Promise<void>> = [];
    let campaigning: Promise<void> | undefined;
    const launch = (entries: Array<{ runnable: Runnable }>, scope: AbortSignal) =>
      entries.map(({ runnable }) => {
        const run = runnable.start(scope).catch((err: unknown) => {
          this.logger.error({ err, runnable: runnable.name }, 'runnable failed; stopping the manager');
          failure.abort(err);
        });
        running.push(run);
        return run;
      });
    try {
      launch(this.scoped('server'), stopAll);
      // Before the caches: listing a kind whose conversion is ours needs our conversion webhook.
      if (this.webhooks.hasHandlers) await this.webhooks.start();
      // Without an election every controller runs here: its handlers take the first lists as they
      // come, and its workers still wait for every cache. A leader's controllers connect once it leads.
      if (!this.elector) for (const controller of this.controllers) controller.connect();
      this.informerHealth.registerInformers();
      this.cache.start();
      await this.cache.waitForCacheSync(this.options.cacheSyncTimeoutMs ?? 120_000, stopAll).catch((err) => {
        if (!stopAll.aborted) throw err;
      });
      // Stopped before the caches synced: start nothing more, so nothing holds up the shutdown.
      if (!stopAll.aborted) {
        launch(this.scoped('always'), stopAll);
        const leaderOnly = this.scoped('leader');
        if (!this.elector) launch(leaderOnly, stopAll);
        else campaigning = this.campaign(leaderOnly, stopAll, failure, launch);
      }
      if (!stopAll.aborted)
        await new Promise((resolve) => stopAll.addEventListener('abort', resolve, { once: true }));
      this.logger.info('stopping: draining in-flight reconciles');
      if (!(await settlesWithin(this.clock, Promise.all(running), this.gracefulShutdownTimeoutMs)))
        this.logger.warn({ timeoutMs: this.gracefulShutdownTimeoutMs }, 'graceful shutdown timed out');
    } finally {
      // Release only after the reconciles are done, so the next leader never overlaps with them.
      await this.elector?.stop();
      await campaigning;
      await this.cache.stop();
      await this.recorder.flush();
      await this.webhooks.stop();
      await this.probes.stop();
      this.logger.info('manager stopped');
    }
    if (failure.signal.aborted) throw failure.signal.reason;
  }

  /**
   * Campaigns for the lease and runs the leader-only runnables while leading; resolves when the
   * manager stops, or after a loss with `onLoss: 'exit'` (having aborted `failure`).
   */
  private async campaign(
    leaderOnly: Array<{ runnable: Runnable }>,
    stopAll: AbortSignal,
    failure: AbortController,
    launch: (entries: Array<{ runnable: Runnable }>, scope: AbortSignal) => Array<Promise<void>>,
  ): Promise<void> {
    const elector = this.elector as LeaderElector;
    const term = { leading: undefined as AbortSignal | undefined, runs: [] as Array<Promise<void>> };
    this.onStartedLeading = (leadership) => {
      term.leading = leadership;
      this.logger.info({ identity: elector.identity }, 'became leader');
      term.runs = launch(leaderOnly, AbortSignal.any([leadership, stopAll]));
    };
    while (!stopAll.aborted) {
      term.leading = undefined;
      term.runs = [];
      // Runs until the lease is lost, or until start() stops it after draining (the release).
      await elector.run();
      const lost = (term.leading as AbortSignal | undefined)?.aborted === true;
      if (stopAll.aborted || !lost) return;
      this.logger.error('leader lease lost');
      if ((this.options.leaderElection?.onLoss ?? 'exit') === 'exit') {
        failure.abort(new LeadershipLostError('leader lease lost'));
        return;
      }
      // Standby: the last term's runnables see the loss and drain their in-flight work; a new
      // term starts them again, so it may begin only once they have all returned. One that never
      // does would leave this replica passive for good: it fails the manager instead (a restart).
      if (!(await settlesWithin(this.clock, Promise.all(term.runs), this.gracefulShutdownTimeoutMs))) {
        const ms = this.gracefulShutdownTimeoutMs;
        failure.abort(new Error(`after losing the lease, leader-only work did not stop within ${ms} ms`));
        return;
      }
      // A controller stops waiting for a reconcile that outlives its drain timeout, which runs on:
      // a new term would run its key again beside it. Fail instead, as controller-runtime exits.
      const running = this.controllers.filter((c) => c.inFlight > 0);
      if (running.length > 0) {
        const which = running.map((c) => `${c.name} (${c.inFlight})`).join(', ');
        failure.abort(
          new Error(`after losing the lease, reconciles still run past their drain timeout: ${which}`),
        );
        return;
      }
    }
  }

  private scoped(scope: RunnableScope): Array<{ runnable: Runnable }> {
    return this.runnables.filter((r) => r.scope === scope);
  }

  private get gracefulShutdownTimeoutMs(): number {
    return this.options.gracefulShutdownTimeoutMs ?? 30_000;
  }
}
