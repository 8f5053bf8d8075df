/**
 * What a reflector knows of its own health: whether the server serves its kind (a 404 says its
 * CRD is missing) and since when its requests have failed. Updated once per step of the machine
 * (a request, or a batch of watch events), never per object.
 */
import { ApiError } from '../api/errors.js';
import type { Clock } from '../clock.js';

/** The health of one reflector. */
export class ReflectorHealth {
  /** False from a 404 for the kind until a list or watch succeeds again. */
  served = true;
  /** When the current run of failures began (clock ms); undefined while healthy. */
  private failingSince: number | undefined;
  /** Waiting for the first sync or for the kind to be found not served. */
  private readonly waiters = new Set<() => void>();

  constructor(private readonly clock: Clock) {}

  /**
   * Takes one step's outcome; answers whether the kind just stopped being served (`lost`), came
   * back (`regained`), or the error only repeats a kind still not served (said once, not at every
   * retry while its CRD is missing). A kind not served is a stopped informer, not a failing one.
   */
  observe(error: Error | undefined): { repeat: boolean; lost: boolean; regained: boolean } {
    const wasServed = this.served;
    const notFound = error instanceof ApiError && error.code === 404;
    if (notFound && wasServed) {
      this.served = false;
      this.wake();
    } else if (!error) this.served = true;
    if (!error || notFound) this.failingSince = undefined;
    else this.failingSince ??= this.clock.now();
    return { repeat: notFound && !wasServed, lost: notFound && wasServed, regained: !error && !wasServed };
  }

  /** How long requests have failed without a success between (0 while healthy). */
  failingForMs(): number {
    return this.failingSince === undefined ? 0 : this.clock.now() - this.failingSince;
  }

  /** Resolves once the kind is found not served, or {@link wake} is called (the first sync). */
  whenUnserved(): Promise<void> {
    if (!this.served) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  /** Resolves every {@link whenUnserved} waiting now. */
  wake(): void {
    for (const resolve of this.waiters) resolve();
    this.waiters.clear();
  }
}
