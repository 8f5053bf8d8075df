import { backoffDelay } from '../backoff-delay.js';
import type { Clock } from '../clock.js';

/** Parameters of {@link Backoff}; the defaults are client-go's reflector backoff. */
export interface BackoffOptions {
  /** First delay (default 800 ms). */
  initialMs?: number;
  /** Upper bound of any delay, jitter included (default 30 s). */
  maxMs?: number;
  /** Growth per consecutive failure (default 2). */
  factor?: number;
  /** Each delay is stretched by up to this fraction, at random (default 1.0: up to double). */
  jitter?: number;
  /** After this long without a failure the delay starts over from `initialMs` (default 2 min). */
  resetAfterMs?: number;
  /** Source of randomness in [0, 1) (default Math.random); inject one for reproducible tests. */
  random?: () => number;
}

/**
 * Exponential backoff with jitter that forgets past failures after a healthy period. Jitter keeps
 * a fleet of clients that failed together from retrying together; the cap is applied after jitter
 * so no delay ever exceeds `maxMs`.
 */
export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private readonly random: () => number;
  private attempt = 0;
  /** When the last retry was due: health is measured from there, not from the failure. */
  private lastRetryAt: number | undefined;

  constructor(
    private readonly clock: Clock,
    options: BackoffOptions = {},
  ) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 1.0;
    this.resetAfterMs = options.resetAfterMs ?? 120_000;
    this.random = options.random ?? Math.random;
  }

  /** Records a failure and returns how long to wait before the next attempt. */
  next(): number {
    const now = this.clock.now();
    if (this.lastRetryAt !== undefined && now - this.lastRetryAt >= this.resetAfterMs) this.attempt = 0;
    const base = backoffDelay(this.attempt, {
      initialMs: this.initialMs,
      maxMs: this.maxMs,
      factor: this.factor,
    });
    const delay = Math.min(this.maxMs, Math.round(base * (1 + this.jitter * this.random())));
    this.attempt++;
    this.lastRetryAt = now + delay;
    return delay;
  }

  /** Forgets every failure. */
  reset(): void {
    this.attempt = 0;
    this.lastRetryAt = undefined;
  }
}
