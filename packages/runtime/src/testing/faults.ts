import { apiError } from '../api/errors.js';
import type { ObjectKey, ResourceType } from '../api/types.js';

/** The verbs of `ApiTransport`, as named in fault injection. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'createSubresource';

/** A request as fault hooks see it. */
export interface FakeRequest {
  readonly verb: Verb;
  readonly type: ResourceType;
  readonly key?: ObjectKey;
  readonly options?: unknown;
}

/** Decides whether a request fails: return the error to answer with, or undefined to let it pass. */
export type FaultHook = (request: FakeRequest) => Error | undefined;

interface Fault {
  readonly verb: Verb | '*';
  readonly error: Error;
  remaining: number;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The fake cluster's fault injection and request counts: queued faults first, then hooks. */
export class Faults {
  private queued: Fault[] = [];
  private readonly hooks = new Set<FaultHook>();
  private readonly counts = new Map<Verb, number>();

  /** Counts a request as received (before its latency, so a faulted one counts too). */
  count(request: FakeRequest): void {
    this.counts.set(request.verb, (this.counts.get(request.verb) ?? 0) + 1);
  }

  /** The error `request` must fail with, if any; a queued fault is used up by it. */
  errorFor(request: FakeRequest): Error | undefined {
    const i = this.queued.findIndex((f) => f.verb === '*' || f.verb === request.verb);
    if (i >= 0) {
      const f = this.queued[i] as Fault;
      if (--f.remaining <= 0) this.queued.splice(i, 1);
      return f.error;
    }
    for (const hook of this.hooks) {
      const err = hook(request);
      if (err) return err;
    }
    return undefined;
  }

  /** See `FakeCluster.failNext`. */
  failNext(verb: Verb | '*', error: Error | number, count: number): void {
    const err =
      typeof error === 'number'
        ? apiError(error, REASONS[error] ?? 'Unknown', `injected fault (${error})`)
        : error;
    this.queued.push({ verb, error: err, remaining: count });
  }

  /** Adds a hook; returns a function removing it. */
  addHook(hook: FaultHook): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  clear(): void {
    this.queued = [];
    this.hooks.clear();
  }

  /** Requests of `verb` (or of all verbs) received, faulted ones included. */
  requestCount(verb?: Verb): number {
    if (verb) return this.counts.get(verb) ?? 0;
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }
}
