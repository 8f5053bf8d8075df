/**
 * Leader election on a `coordination.k8s.io/v1` Lease, with client-go's semantics: only one replica
 * of an operator runs its leader-only work at a time, and a standby takes over when the leader
 * stops (at once, when it released the lease) or dies (once the lease expires).
 *
 * Safety rests on two rules. A standby measures a lease's expiry on its own clock, from when it
 * last saw the lease change, so clock skew between replicas does not matter. The leader stops
 * believing it leads once `renewDeadline` has passed since the start of its last successful renewal,
 * even while a request hangs; with `renewDeadline < leaseDuration` it has stepped down before any
 * standby can see the lease expire.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { isAlreadyExists, isConflict, isNotFound } from '../../api/errors.js';
import { Lease } from '../../client/builtin.js';
import { type Clock, realClock, sleep, type TimerHandle } from '../../clock.js';
import type { Logger } from '../../log/logger.js';
import type { ApiTransport } from '../../transport/transport.js';
import { LeaseFailureLog } from './failure-log.js';
import { electionRecord, heldSpec, type LeaseSpec, microTime, releasedSpec } from './lease-record.js';

/** Why leadership ended. */
export interface StoppedLeadingInfo {
  /** True when leadership was lost (renewal failed, or another holder seen); false after `stop()`. */
  lost: boolean;
}

/** Options of a {@link LeaderElector}. */
export interface LeaderElectorOptions {
  /** The Lease's name (the leader election ID). */
  name: string;
  /** The Lease's namespace. */
  namespace: string;
  /** Why that namespace (e.g. `--leader-election-namespace`): logged when campaigning starts. */
  namespaceFrom?: string;
  /** Who we are; default `${hostname}_${random UUID}`. Must differ between replicas. */
  identity?: string;
  /** How long standbys wait, after the lease last changed, before taking it over. Default 15 s. */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it steps down. Default 10 s. */
  renewDeadlineMs?: number;
  /** How often to try to acquire or renew. Default 2 s. */
  retryPeriodMs?: number;
  /** Acquire attempts wait `retryPeriod × (1 + random × jitterFactor)`. Default 1.2; 0 for none. */
  jitterFactor?: number;
  /** Source of jitter; default `Math.random`. */
  random?: () => number;
  /** Default: the wall clock. Tests pass a virtual one. */
  clock?: Clock;
  /** Write `holderIdentity: ''` on `stop()` so a standby takes over at once. Default true. */
  releaseOnStop?: boolean;
  /** We became the leader; `signal` aborts when we stop being it. */
  onStartedLeading?: (signal: AbortSignal) => void;
  /** We stopped being the leader. */
  onStoppedLeading?: (info: StoppedLeadingInfo) => void;
  /** The lease's holder changed to `identity` (ourselves included). */
  onNewLeader?: (identity: string) => void;
  /** Told whenever we become or stop being the leader (`leader_election_master_status`). */
  metrics?: { setLeader(name: string, isLeader: boolean): void };
  logger?: Logger;
}

interface Observation {
  /** The leader election fields of the lease, as JSON: what "changed" compares. */
  readonly json: string;
  readonly spec: LeaseSpec;
  /** The lease's resourceVersion: writes are conditional on it. */
  readonly resourceVersion: string | undefined;
  /** When, on our clock, we first saw this record. */
  readonly at: number;
}

const DEFAULT_LEASE_DURATION_MS = 15_000;
const DEFAULT_RENEW_DEADLINE_MS = 10_000;
const DEFAULT_RETRY_PERIOD_MS = 2_000;
const DEFAULT_JITTER = 1.2;

/**
 * Campaigns for a Lease and keeps it renewed while leading.
 *
 * @example
 * const elector = new LeaderElector(transport, {
 *   name: 'capstan-coordinator', namespace: 'capstan-system',
 *   onStartedLeading: (signal) => startControllers(signal),
 *   onStoppedLeading: ({ lost }) => { if (lost) process.exit(1); },
 * });
 * elector.start();
 * // on SIGTERM:
 * await elector.stop(); // steps down, then releases the lease
 */
export class LeaderElector {
  /** Our identity, as written in the lease's `holderIdentity`. */
  readonly identity: string;
  private readonly clock: Clock;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly jitterFactor: number;
  private readonly random: () => number;

  private observed: Observation | undefined;
  private reportedLeader: string | undefined;
  /** Set while we lead; aborted when we stop leading. */
  private leadership: AbortController | undefined;
  private stopper: AbortController | undefined;
  private running: Promise<void> | undefined;
  private readonly failures = new LeaseFailureLog();

  /** @throws Error when the durations cannot be safe (renew deadline ≥ lease duration, ...). */
  constructor(
    private readonly transport: ApiTransport,
    private readonly options: LeaderElectorOptions,
  ) {
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    this.clock = options.clock ?? realClock;
    this.leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    this.jitterFactor = options.jitterFactor ?? DEFAULT_JITTER;
    this.random = options.random ?? Math.random;
    if (!options.name || !options.namespace)
      throw new Error('leader election needs a lease name and namespace');
    if (!this.identity) throw new Error('leader election needs a non-empty identity');
    if (this.leaseDurationMs < 1000) throw new Error('leader election: lease duration must be at least 1s');
    if (this.renewDeadlineMs >= this.leaseDurationMs) {
      throw new Error('leader election: renew deadline must be shorter than the lease duration');
    }
    if (this.retryPeriodMs <= 0 || this.retryPeriodMs >= this.renewDeadlineMs) {
      throw new Error('leader election: retry period must be positive and shorter than the renew deadline');
    }
  }

  /** Whether we hold the lease (and are within the renew deadline). */
  isLeader(): boolean {
    return this.leadership !== undefined;
  }

  /** The holder of the lease when we last read it (`''` when released), if we read it. */
  leader(): string | undefined {
    return this.observed?.spec.holderIdentity;
  }

  /** Runs {@link run} in the background; `stop()` ends it. */
  start(): void {
    this.run().catch((err: unknown) => this.options.logger?.error({ err }, 'leader election failed'));
  }

  /**
   * Campaigns until we lead, then renews until leadership is lost or `stop()` is called. Resolves
   * when it is over (after releasing the lease on stop); call again to campaign anew.
   */
  run(): Promise<void> {
    if (this.running) throw new Error('leader election is already running');
    const stopper = new AbortController();
    this.stopper = stopper;
    this.running = this.campaign(stopper.signal).finally(() => {
      this.running = undefined;
      this.stopper = undefined;
    });
    return this.running;
  }

  /**
   * Stops campaigning; when leading, steps down (`onStoppedLeading({ lost: false })`, the
   * leadership signal aborts) and then releases the lease. Resolves once done.
   */
  async stop(): Promise<void> {
    this.stopper?.abort(new Error('leader election stopped'));
    await this.running;
  }

  private async campaign(stop: AbortSignal): Promise<void> {
    this.options.metrics?.setLeader(this.options.name, false);
    const from = this.options.namespaceFrom;
    this.log('info', `attempting to acquire leader lease${from ? ` (namespace from ${from})` : ''}`);
    const since = await this.acquire(stop);
    if (since === undefined) return;
    await this.renew(since, stop);
  }

  /** Tries every retry period (jittered); resolves with the start time of the winning attempt. */
  private async acquire(stop: AbortSignal): Promise<number | undefined> {
    for (;;) {
      if (stop.aborted) return undefined;
      const started = this.clock.now();
      if (await this.tryAcquireOrRenew()) {
        if (stop.aborted) return started; // won while stopping: renew() releases at once
        // Won, but the renew deadline since this attempt began has passed (a slow server): a
        // term would end as it starts. The lease is ours now, so renew it first, at once.
        if (this.clock.now() - started >= this.renewDeadlineMs) {
          this.log('warn', 'won the lease after the renew deadline; renewing it before leading');
          continue;
        }
        this.startLeading();
        return started;
      }
      const wait = this.retryPeriodMs * (1 + this.random() * this.jitterFactor);
      try {
        await sleep(this.clock, wait, stop);
      } catch {
        return undefined;
      }
    }
  }

  /**
   * Renews every retry period. Leadership ends at `renewDeadline` after the start of the last
   * successful renewal (a timer enforces it even while a request hangs), or at once when another
   * holder is seen; on `stop` we step down and release.
   */
  private async renew(since: number, stop: AbortSignal): Promise<void> {
    const leadership = this.leadership;
    let deadline: TimerHandle | undefined;
    const arm = (renewedAt: number) => {
      if (deadline) this.clock.clearTimeout(deadline);
      deadline = this.clock.setTimeout(
        () => this.stopLeading(true, 'failed to renew the lease within the renew deadline'),
        renewedAt + this.renewDeadlineMs - this.clock.now(),
      );
    };
    if (leadership) {
      arm(since);
      const ended = AbortSignal.any([stop, leadership.signal]);
      while (!ended.aborted) {
        try {
          await sleep(this.clock, this.retryPeriodMs, ended);
        } catch {
          break;
        }
        const started = this.clock.now();
        const renewed = await this.tryAcquireOrRenew();
        if (leadership.signal.aborted) break;
        if (renewed) {
          arm(started);
        } else if (this.observed && this.observed.spec.holderIdentity !== this.identity) {
          this.stopLeading(true, `the lease is now held by "${this.observed.spec.holderIdentity}"`);
        } else {
          this.log('warn', 'failed to renew the lease; retrying');
        }
      }
      if (deadline) this.clock.clearTimeout(deadline);
    }
    if (stop.aborted) {
      this.stopLeading(false, 'stopping');
      if (this.options.releaseOnStop ?? true) await this.release();
    }
  }

  /**
   * One attempt: reads the lease and writes ourselves in as holder when it is absent, released,
   * expired (on our clock) or already ours. Resolves false on any failure (conflicts included).
   */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { name, namespace } = this.options;
    let lease: Lease;
    try {
      lease = await this.transport.get(Lease, { namespace, name });
    } catch (err) {
      if (!isNotFound(err)) {
        this.failed('read', err);
        return false;
      }
      return this.create();
    }
    const observation = this.observe(lease);
    const spec = observation.spec;
    const holder = spec.holderIdentity ?? '';
    const now = this.clock.now();
    const durationMs = (spec.leaseDurationSeconds ?? this.leaseDurationMs / 1000) * 1000;
    if (holder !== '' && holder !== this.identity && observation.at + durationMs > now) return false;

    try {
      const written = await this.transport.update(Lease, {
        ...lease,
        spec: heldSpec(spec, this.identity, this.leaseDurationSeconds(), now),
      });
      this.observe(written);
      this.failures.succeeded();
      return true;
    } catch (err) {
      if (isConflict(err)) this.log('debug', 'lost a race for the lease (conflict)');
      else this.failed('update', err);
      return false;
    }
  }

  private async create(): Promise<boolean> {
    const { name, namespace } = this.options;
    const now = microTime(this.clock.now());
    try {
      const created = await this.transport.create(Lease, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: {
          holderIdentity: this.identity,
          leaseDurationSeconds: this.leaseDurationSeconds(),
          acquireTime: now,
          renewTime: now,
          leaseTransitions: 0,
        },
      });
      this.observe(created);
      this.failures.succeeded();
      return true;
    } catch (err) {
      if (!isAlreadyExists(err)) this.failed('create', err);
      return false;
    }
  }

  /** Hands the lease over: holder cleared, duration 1 s, so a standby acquires at its next try. */
  private async release(): Promise<void> {
    const observed = this.observed;
    if (!observed || observed.spec.holderIdentity !== this.identity) return;
    try {
      const released = await this.transport.update(Lease, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: this.options.name,
          namespace: this.options.namespace,
          resourceVersion: observed.resourceVersion,
        },
        spec: releasedSpec(observed.spec, this.clock.now()),
      });
      this.observe(released);
      this.log('info', 'released the leader lease');
    } catch (err) {
      this.failed('release', err);
    }
  }

  /** Records what we read or wrote; its time changes only when the record itself changed. */
  private observe(lease: Lease): Observation {
    const spec = lease.spec ?? {};
    const json = electionRecord(spec);
    const previous = this.observed;
    const at = previous && previous.json === json ? previous.at : this.clock.now();
    const observation = { json, spec, resourceVersion: lease.metadata.resourceVersion, at };
    this.observed = observation;
    const holder = spec.holderIdentity ?? '';
    if (holder !== '' && holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      this.log('info', `new leader: ${holder}`);
      this.callback('onNewLeader', () => this.options.onNewLeader?.(holder));
    }
    return observation;
  }

  private startLeading(): void {
    const leadership = new AbortController();
    this.leadership = leadership;
    this.options.metrics?.setLeader(this.options.name, true);
    this.log('info', 'became the leader');
    this.callback('onStartedLeading', () => this.options.onStartedLeading?.(leadership.signal));
  }

  private stopLeading(lost: boolean, why: string): void {
    const leadership = this.leadership;
    if (!leadership) return;
    this.leadership = undefined;
    this.options.metrics?.setLeader(this.options.name, false);
    this.log(lost ? 'error' : 'info', `stopped leading: ${why}`);
    leadership.abort(new Error(lost ? `leadership lost: ${why}` : 'leader election stopped'));
    this.callback('onStoppedLeading', () => this.options.onStoppedLeading?.({ lost }));
  }

  private leaseDurationSeconds(): number {
    return Math.max(1, Math.ceil(this.leaseDurationMs / 1000));
  }

  private callback(name: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log('error', `leader election callback ${name} threw`, err);
    }
  }

  /** A failed lease request: said once as a warning with its fix, then at debug while it repeats. */
  private failed(action: string, err: unknown): void {
    const { level, message } = this.failures.report(action, this.options.namespace, this.options.name, err);
    this.log(level, message, err);
  }

  private log(level: 'debug' | 'info' | 'warn' | 'error', msg: string, err?: unknown): void {
    const logger = this.options.logger;
    if (!logger) return;
    const fields = { lease: `${this.options.namespace}/${this.options.name}`, identity: this.identity };
    logger[level](err === undefined ? fields : { ...fields, err }, msg);
  }
}
