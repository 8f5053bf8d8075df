/**
 * How long an object waits after a VCD error before its next try: the runtime's per-key
 * exponential curve, kept per object and started over after a reconcile without a VCD error. The
 * work queue's own rate limit starts at 5 ms, which against a busy or failing VCD is a burst (five
 * tries in ~150 ms); VCD asks for seconds. A reconcile that an unrelated event brings early (a
 * label Cluster API adds, a watch resync) must not try again either: it is told how long is left.
 */
import type { Clock } from '@capstan/runtime';
import { ExponentialRateLimiter } from '@capstan/runtime/workqueue';

/** The curve's first delay and cap. */
export interface ErrorBackoffCurve {
  initialMs: number;
  maxMs: number;
}

/** 1 s, 2 s, 4 s, ... at most 5 min. */
export const DEFAULT_VCD_ERROR_BACKOFF: ErrorBackoffCurve = { initialMs: 1_000, maxMs: 300_000 };

/** Per-object backoff after VCD errors. */
export class VcdErrorBackoff {
  private readonly limiter: ExponentialRateLimiter<string>;
  /** When each object backing off may try again (clock milliseconds). */
  private readonly notBefore = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    curve: ErrorBackoffCurve = DEFAULT_VCD_ERROR_BACKOFF,
  ) {
    this.limiter = new ExponentialRateLimiter<string>(curve.initialMs, curve.maxMs);
  }

  /** The delay before `key`'s next try, after one more VCD error in a row. */
  failed(key: string): number {
    const delay = this.limiter.when(key);
    this.notBefore.set(key, this.clock.now() + delay);
    return delay;
  }

  /** How long `key` must still wait before it may call VCD again (0: it may now). */
  remaining(key: string): number {
    const at = this.notBefore.get(key);
    return at === undefined ? 0 : Math.max(0, at - this.clock.now());
  }

  /** `key` got through a reconcile without a VCD error: its next error starts the curve over. */
  succeeded(key: string): void {
    this.limiter.forget(key);
    this.notBefore.delete(key);
  }
}
