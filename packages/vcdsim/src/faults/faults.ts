/**
 * Faults a test can inject. Each is shaped as VCD shapes the real failure: a task ending in error
 * with an `Error` child, an HTTP error answer in the API's error body, slowness, expired tokens, an
 * exhausted IP pool.
 */
import { errors, VcdError } from '../server/errors.js';

/** Which requests a fault applies to. Absent fields match everything. */
export interface RequestMatch {
  method?: string;
  /** A route pattern as in the request log (e.g. `/api/vApp/vm-{id}`), or a path prefix. */
  path?: string;
}

interface Burst {
  match: RequestMatch;
  remaining: number;
  error: () => VcdError;
}

interface Slowness {
  match: RequestMatch;
  ms: number;
}

const matches = (m: RequestMatch, method: string, route: string, path: string): boolean =>
  (!m.method || m.method.toUpperCase() === method) &&
  (!m.path || m.path === route || path.startsWith(m.path));

/** The fault registry. */
export class Faults {
  readonly #taskFailures = new Map<string, { remaining: number; error: VcdError }[]>();
  #bursts: Burst[] = [];
  #slowness: Slowness[] = [];
  readonly #exhaustedPools = new Set<string>();
  /** Set by the simulator: expires every live session. */
  expireTokens: () => void = () => {};

  /** The next `count` tasks with this operation name (e.g. `vdcRecomposeVapp`) end in error. */
  failTask(
    operationName: string,
    opts: { count?: number; message?: string; minorErrorCode?: string } = {},
  ): void {
    const list = this.#taskFailures.get(operationName) ?? [];
    list.push({
      remaining: opts.count ?? 1,
      error: new VcdError(
        500,
        opts.minorErrorCode ?? 'INTERNAL_SERVER_ERROR',
        opts.message ?? 'Injected task failure.',
      ),
    });
    this.#taskFailures.set(operationName, list);
  }

  /** The next `count` matching requests are answered with `status` (500, 502, 503, 504 or 429). */
  httpErrors(status: 429 | 500 | 502 | 503 | 504, count: number, match: RequestMatch = {}): void {
    const error = (): VcdError =>
      status === 429
        ? errors.tooManyRequests()
        : status === 503
          ? errors.unavailable()
          : new VcdError(status, 'INTERNAL_SERVER_ERROR', `Injected HTTP ${status}.`);
    this.#bursts.push({ match, remaining: count, error });
  }

  /**
   * The session's user loses the rights VCD's `View vApp` and `View VDC` grant (a role change):
   * matching requests are answered VCD's 403, as for an object that does not exist, until `clear()`.
   */
  denyAccess(...matches: RequestMatch[]): void {
    for (const match of matches)
      this.#bursts.push({ match, remaining: Number.POSITIVE_INFINITY, error: () => errors.forbidden() });
  }

  /** Matching requests are answered `ms` later (real time: HTTP is real). */
  slow(ms: number, match: RequestMatch = {}): void {
    this.#slowness.push({ match, ms });
  }

  /** Address allocation on this org VDC network fails as if its pool were used up. */
  exhaustIpPool(networkName: string): void {
    this.#exhaustedPools.add(networkName);
  }

  /** Removes every fault. */
  clear(): void {
    this.#taskFailures.clear();
    this.#bursts = [];
    this.#slowness = [];
    this.#exhaustedPools.clear();
  }

  /** Consumes a task failure for the operation, if one is armed. */
  takeTaskFailure(operationName: string): VcdError | undefined {
    const list = this.#taskFailures.get(operationName);
    const f = list?.[0];
    if (!f) return undefined;
    if (--f.remaining <= 0) list!.shift();
    return f.error;
  }

  /** Consumes an HTTP error for the request, if one is armed. */
  takeHttpError(method: string, route: string, path: string): VcdError | undefined {
    const b = this.#bursts.find((x) => x.remaining > 0 && matches(x.match, method, route, path));
    if (!b) return undefined;
    b.remaining--;
    this.#bursts = this.#bursts.filter((x) => x.remaining > 0);
    return b.error();
  }

  /** Extra delay for the request in milliseconds. */
  delayFor(method: string, route: string, path: string): number {
    return this.#slowness.filter((s) => matches(s.match, method, route, path)).reduce((a, s) => a + s.ms, 0);
  }

  isPoolExhausted(networkName: string): boolean {
    return this.#exhaustedPools.has(networkName);
  }
}
