import { randomBytes } from 'node:crypto';
import { apiVersionOf, type KubeObject, type ResourceType } from '../api/types.js';
import { Event } from '../client/builtin.js';
import type { Client } from '../client/client.js';
import { type Clock, realClock } from '../clock.js';
import { isoTimestamp } from '../iso-time.js';
import type { Logger } from '../log/logger.js';

/** One event to record about an object. */
export interface EventInput {
  type: 'Normal' | 'Warning';
  /** Why, in UpperCamelCase: `Granted`, `DrainFailed`. */
  reason: string;
  /** What was done or failed, in UpperCamelCase: `Reboot`, `Drain`. */
  action: string;
  /** Human-readable detail (at most 1 kB is kept). */
  note?: string;
}

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  /** `reportingController`, e.g. `reboot.capstan.dev/coordinator`. */
  controller: string;
  /** `reportingInstance`, e.g. the pod name. */
  instance: string;
  clock?: Clock;
  logger?: Logger;
  /** Events allowed per object in a burst (default 25) and how fast the allowance refills (default 1 per 5 min). */
  burst?: number;
  refillIntervalMs?: number;
  /** A repeat later than this starts a new event instead of growing the series (default 6 min, as client-go). */
  seriesWindowMs?: number;
}

interface SeriesState {
  namespace: string;
  name: string;
  count: number;
  lastObservedTime: string;
  lastSeenAt: number;
  /** A write for this series is running; `dirty` asks for one more when it ends. */
  writing: boolean;
  dirty: boolean;
  created: Promise<boolean>;
}

const microTime = (ms: number) => isoTimestamp(ms).replace(/\.(\d{3})Z$/, '.$1000Z');

/**
 * Records `events.k8s.io/v1` events. Repeats of one event (same object, type, reason, action and
 * note) within the series window update one Event's `series` (count and lastObservedTime) instead
 * of creating new ones; events per object are rate-limited (a token bucket) so a hot loop cannot
 * flood the apiserver. Recording never throws: failures are logged, since an event must never
 * fail a reconcile.
 */
export class EventRecorder {
  private readonly series = new Map<string, SeriesState>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly clock: Clock;
  private readonly burst: number;
  private readonly refillIntervalMs: number;
  private readonly seriesWindowMs: number;
  private readonly pending = new Set<Promise<unknown>>();
  private records = 0;
  /** Events dropped by the rate limit (for tests and metrics). */
  dropped = 0;

  constructor(
    private readonly client: Client,
    private readonly options: EventRecorderOptions,
  ) {
    this.clock = options.clock ?? realClock;
    this.burst = options.burst ?? 25;
    this.refillIntervalMs = options.refillIntervalMs ?? 5 * 60_000;
    this.seriesWindowMs = options.seriesWindowMs ?? 6 * 60_000;
  }

  /** Records an event about `object` (of kind `type`). Returns at once; the write happens in the background. */
  record(type: ResourceType, object: KubeObject, input: EventInput): void {
    const { uid, name, namespace } = object.metadata;
    const objectKey = `${type.group}/${type.kind}/${namespace ?? ''}/${name}/${uid ?? ''}`;
    const note = input.note?.slice(0, 1024);
    const seriesKey = `${objectKey}|${input.type}|${input.reason}|${input.action}|${note ?? ''}`;
    const now = this.clock.now();
    if (++this.records % 1000 === 0) this.prune(now);
    const existing = this.series.get(seriesKey);
    if (existing && now - existing.lastSeenAt <= this.seriesWindowMs) {
      // A repeat grows the series; it is not rate-limited, as it adds no new object to the server.
      existing.count++;
      existing.lastSeenAt = now;
      existing.lastObservedTime = microTime(now);
      this.track(this.writeSeries(existing));
      return;
    }
    if (!this.take(objectKey, now)) {
      this.dropped++;
      return;
    }
    const eventNamespace = namespace ?? 'default';
    const eventName = `${name}.${now.toString(16)}${randomBytes(3).toString('hex')}`;
    const body: Event = {
      metadata: { name: eventName, namespace: eventNamespace },
      eventTime: microTime(now),
      reportingController: this.options.controller,
      reportingInstance: this.options.instance,
      action: input.action,
      reason: input.reason,
      type: input.type,
      ...(note ? { note } : {}),
      regarding: {
        apiVersion: apiVersionOf(type),
        kind: type.kind,
        name: name ?? '',
        ...(namespace ? { namespace } : {}),
        ...(uid ? { uid } : {}),
      },
    };
    const created = this.client.create(Event, body).then(
      () => true,
      (err: unknown) => {
        this.options.logger?.warn({ err, reason: input.reason }, 'could not record event');
        this.series.delete(seriesKey);
        return false;
      },
    );
    this.series.set(seriesKey, {
      namespace: eventNamespace,
      name: eventName,
      count: 1,
      lastObservedTime: microTime(now),
      lastSeenAt: now,
      writing: false,
      dirty: false,
      created,
    });
    this.track(created);
  }

  /** Resolves when every write started so far has finished (for tests and graceful shutdown). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Writes the latest count; repeats arriving during a write are folded into one more write. */
  private async writeSeries(state: SeriesState): Promise<void> {
    if (state.writing) {
      state.dirty = true;
      return;
    }
    state.writing = true;
    try {
      if (!(await state.created)) return;
      do {
        state.dirty = false;
        await this.client
          .patch(Event, { namespace: state.namespace, name: state.name }, 'merge', {
            series: { count: state.count, lastObservedTime: state.lastObservedTime },
          })
          .catch((err: unknown) => this.options.logger?.warn({ err }, 'could not update event series'));
      } while (state.dirty);
    } finally {
      state.writing = false;
    }
  }

  /** Forgets ended series and full buckets, so the maps do not grow with every object ever seen. */
  private prune(now: number): void {
    for (const [key, state] of this.series) {
      if (now - state.lastSeenAt > this.seriesWindowMs && !state.writing) this.series.delete(key);
    }
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) / this.refillIntervalMs >= this.burst) this.buckets.delete(key);
    }
  }

  private take(objectKey: string, now: number): boolean {
    const bucket = this.buckets.get(objectKey) ?? { tokens: this.burst, at: now };
    const refilled = Math.floor((now - bucket.at) / this.refillIntervalMs);
    if (refilled > 0) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + refilled);
      bucket.at += refilled * this.refillIntervalMs;
    }
    if (bucket.tokens < 1) {
      this.buckets.set(objectKey, bucket);
      return false;
    }
    bucket.tokens--;
    this.buckets.set(objectKey, bucket);
    return true;
  }
}
