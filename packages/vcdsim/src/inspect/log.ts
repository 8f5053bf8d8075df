/** The request log: one entry per request served, with counts per method and route or path. */

/** One request as the simulator served it. */
export interface LogEntry {
  seq: number;
  /** Wall-clock milliseconds when the answer was sent. */
  at: number;
  method: string;
  /** The concrete path, without query string. */
  path: string;
  /** The route pattern it matched, e.g. `/api/vApp/vm-{id}` (the path itself when none matched). */
  route: string;
  query: string;
  status: number;
  /** `user@org` of the caller, when authenticated. */
  user?: string;
  durationMs: number;
}

/** Keeps every request served (bounded) and counts them. */
export class RequestLog {
  readonly entries: LogEntry[] = [];
  #seq = 0;
  readonly #byRoute = new Map<string, number>();
  readonly #byPath = new Map<string, number>();

  constructor(private readonly limit = 200_000) {}

  add(entry: Omit<LogEntry, 'seq'>): LogEntry {
    const full = { ...entry, seq: ++this.#seq };
    this.entries.push(full);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
    const rk = `${entry.method} ${entry.route}`;
    const pk = `${entry.method} ${entry.path}`;
    this.#byRoute.set(rk, (this.#byRoute.get(rk) ?? 0) + 1);
    this.#byPath.set(pk, (this.#byPath.get(pk) ?? 0) + 1);
    return full;
  }

  /** Total requests served since start (or the last reset). */
  get total(): number {
    return this.#seq;
  }

  /** Counts keyed `METHOD route` (default) or `METHOD path`. */
  counts(by: 'route' | 'path' = 'route'): Record<string, number> {
    return Object.fromEntries(by === 'route' ? this.#byRoute : this.#byPath);
  }

  /** Forgets every entry and count. */
  reset(): void {
    this.entries.length = 0;
    this.#byRoute.clear();
    this.#byPath.clear();
    this.#seq = 0;
  }
}
