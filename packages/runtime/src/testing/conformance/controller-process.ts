/**
 * One run of the operator's process, as the conformance harness sees it: a transport over the
 * fake cluster that can die (every later call fails, an answer in flight is lost), answer chosen
 * calls with injected errors, and hold back the watch events its cache would get (stale reads),
 * then deliver, merge or lose them.
 */
import { ApiError, apiError } from '../../api/errors.js';
import {
  apiVersionOf,
  type DeleteOptions,
  type KubeObject,
  type ListOptions,
  type ListResult,
  type ObjectKey,
  type PatchOptions,
  type PatchType,
  type ResourceType,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from '../../api/types.js';
import type { ApiTransport, WatchCallbacks, WatchHandle } from '../../transport/transport.js';
import type { FakeCluster } from '../fake-cluster.js';
import type { Verb } from '../faults.js';

/** An answer the harness puts in place of the server's: an API error, or a lost answer. */
export type InjectedAnswer = 409 | 410 | 429 | 500 | 'timeout';

/** How held-back watch events reach the cache when a stale window ends. */
export type StaleEnd = 'deliver' | 'merge' | 'lose';

/** The process died: every call it makes from then on fails with this. */
export class ProcessCrashed extends Error {
  override readonly name = 'ProcessCrashed';
}

/** A write the server committed for a process. */
export interface CommittedWrite {
  readonly verb: Verb;
  readonly type: ResourceType;
  readonly key: ObjectKey | undefined;
  /** The server's answer (the written object, or a Status for a delete). */
  readonly answer: unknown;
  /** The write made the object: a create, or a patch (server-side apply) of one that did not exist. */
  readonly created: boolean;
}

/** What a stale window holds back: watch events, and the end of the stream. */
export type Held = WatchEvent<KubeObject> | { readonly close: Error | undefined };

interface ProcessWatch {
  readonly callbacks: WatchCallbacks<KubeObject>;
  handle: WatchHandle | undefined;
  held: Held[] | undefined;
  closed: boolean;
}

const WRITES = new Set<Verb>(['create', 'update', 'patch', 'delete', 'createSubresource']);

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/** The error an injected answer stands for, as the API server (or the network) gives it. */
export function injectedError(answer: InjectedAnswer): Error {
  switch (answer) {
    case 409:
      return apiError(409, 'Conflict', 'injected: the object has been modified');
    case 410:
      return apiError(410, 'Expired', 'injected: too old resource version');
    case 429:
      return new ApiError(
        { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 429, reason: 'TooManyRequests' },
        2,
      );
    case 500:
      return apiError(500, 'InternalError', 'injected: internal error');
    case 'timeout':
      return new Error('injected: the request timed out (its outcome is unknown)');
  }
}

/** Keeps, of held events, the last one per object (and the last bookmark), in their order. */
export function mergeHeld(held: readonly Held[]): Held[] {
  const last = new Map<string, number>();
  held.forEach((e, i) => {
    if ('close' in e) return;
    last.set(e.type === 'ERROR' ? `error ${i}` : `${e.type === 'BOOKMARK'}:${keyOf(e.object)}`, i);
  });
  const kept = new Set(last.values());
  return held.filter((e, i) => 'close' in e || kept.has(i));
}

/** A transport for one run of the controller process. */
export class ControllerProcess implements ApiTransport {
  /** Writes the server committed for this process. */
  committedWrites = 0;
  /** Write requests this process sent (no-ops and refused ones included). */
  readonly writeRequests: string[] = [];
  private isDead = false;
  private crashAt: number | undefined;
  private answers: Array<{ verb: Verb; nth: number; answer: InjectedAnswer }> = [];
  private readonly calls = new Map<Verb, number>();
  private readonly watches = new Set<ProcessWatch>();
  private holding = false;
  /** While stale: the revision the cache is held at, which lists are served from too. */
  private staleAt: string | undefined;
  private readonly atWrites: Array<{ at: number; run: () => void }> = [];

  constructor(
    private readonly cluster: FakeCluster,
    /** Told of every committed write, before the process sees the answer. */
    private readonly onWrite: (write: CommittedWrite) => void,
    /** Told once, when the process dies. */
    private readonly onDeath: () => void,
  ) {}

  get dead(): boolean {
    return this.isDead;
  }

  /** The process dies as its `n`th write from now is committed: the server acted, no answer came. */
  crashAfterWrites(n: number): void {
    this.crashAt = this.committedWrites + Math.max(1, n);
  }

  /** The `nth` call of `verb` from now is answered with `answer`. */
  inject(verb: Verb, nth: number, answer: InjectedAnswer): void {
    this.answers.push({ verb, nth: (this.calls.get(verb) ?? 0) + Math.max(1, nth), answer });
  }

  /** Runs `fn` as this process's `n`th write from now is committed (at once for 0). */
  atWrite(n: number, fn: () => void): void {
    if (n <= 0) fn();
    else this.atWrites.push({ at: this.committedWrites + n, run: fn });
  }

  /**
   * Watch events stop reaching the cache, and lists from the watch cache answer the state of now, until
   * {@link endStale}: the cache serves an older snapshot than the server, as a lagging watch
   * cache does.
   */
  startStale(at = this.cluster.currentResourceVersion()): void {
    this.holding = true;
    this.staleAt ??= at;
    for (const w of this.watches) w.held ??= [];
  }

  /** Ends a stale window: the held events are delivered, merged (last per object) or lost (then a relist). */
  endStale(how: StaleEnd): void {
    this.holding = false;
    this.staleAt = undefined;
    for (const w of [...this.watches]) {
      const held = w.held ?? [];
      w.held = undefined;
      if (how === 'lose') this.forceRelist(w, held);
      else for (const e of how === 'merge' ? mergeHeld(held) : held) this.deliver(w, e);
    }
  }

  /** No more crashes or injected answers; stale windows end with their events delivered. */
  calm(): void {
    this.crashAt = undefined;
    this.answers = [];
    this.atWrites.length = 0;
    this.endStale('deliver');
  }

  /** Kills the process now. */
  kill(): void {
    if (this.isDead) return;
    this.isDead = true;
    for (const w of this.watches) {
      w.closed = true;
      w.handle?.stop();
    }
    this.watches.clear();
    this.onDeath();
  }

  // ---------------------------------------------------------------------------------------------
  // ApiTransport

  get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, subresource?: string): Promise<T> {
    return this.call('get', type, key, () => this.cluster.get(type, key, subresource));
  }

  list<T extends KubeObject>(type: ResourceType<T>, options?: ListOptions): Promise<ListResult<T>> {
    const at = this.staleAt;
    // Only a list the server may answer from its watch cache (resourceVersion "0", or not older
    // than one) can be stale; one without a resourceVersion is a consistent read, fresh.
    const cacheable = options?.resourceVersion !== undefined && options.resourceVersion !== '';
    const stale =
      at !== undefined &&
      cacheable &&
      !options?.continue &&
      (options?.resourceVersionMatch === undefined || options.resourceVersionMatch === 'NotOlderThan');
    return this.call('list', type, undefined, () =>
      this.cluster.list(
        type,
        stale ? { ...options, resourceVersion: at, resourceVersionMatch: 'Exact' } : options,
      ),
    );
  }

  watch<T extends KubeObject>(
    type: ResourceType<T>,
    options: WatchOptions,
    callbacks: WatchCallbacks<T>,
  ): Promise<WatchHandle> {
    return this.call('watch', type, undefined, () =>
      this.openWatch(type, options, callbacks as unknown as WatchCallbacks<KubeObject>),
    );
  }

  create<T extends KubeObject>(type: ResourceType<T>, object: T, options?: WriteOptions): Promise<T> {
    const key = { namespace: object.metadata?.namespace, name: object.metadata?.name ?? '' };
    return this.call('create', type, key, () => this.cluster.create(type, object, options));
  }

  update<T extends KubeObject>(type: ResourceType<T>, object: T, options?: WriteOptions): Promise<T> {
    const key = { namespace: object.metadata?.namespace, name: object.metadata?.name ?? '' };
    return this.call('update', type, key, () => this.cluster.update(type, object, options));
  }

  patch<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    patchType: PatchType,
    body: unknown,
    options?: PatchOptions,
  ): Promise<T> {
    return this.call('patch', type, key, () => this.cluster.patch(type, key, patchType, body, options));
  }

  delete<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    options?: DeleteOptions,
  ): Promise<unknown> {
    return this.call('delete', type, key, () => this.cluster.delete(type, key, options));
  }

  createSubresource(
    type: ResourceType,
    key: ObjectKey,
    subresource: string,
    body: unknown,
  ): Promise<unknown> {
    return this.call('createSubresource', type, key, () =>
      this.cluster.createSubresource(type, key, subresource, body),
    );
  }

  // ---------------------------------------------------------------------------------------------

  private async call<R>(
    verb: Verb,
    type: ResourceType,
    key: ObjectKey | undefined,
    serve: () => Promise<R>,
  ): Promise<R> {
    if (this.isDead) throw new ProcessCrashed('the process is dead');
    const nth = (this.calls.get(verb) ?? 0) + 1;
    this.calls.set(verb, nth);
    const i = this.answers.findIndex((a) => a.verb === verb && a.nth === nth);
    const injected = i >= 0 ? this.answers.splice(i, 1)[0]?.answer : undefined;
    const write = WRITES.has(verb);
    if (write) this.writeRequests.push(`${verb} ${type.kind} ${key?.namespace ?? ''}/${key?.name ?? ''}`);
    if (injected !== undefined && injected !== 'timeout') {
      await Promise.resolve();
      throw injectedError(injected);
    }
    const existed = verb === 'patch' && key !== undefined && this.cluster.getObject(type, key) !== undefined;
    const answer = await serve();
    if (write) {
      this.committedWrites++;
      const created = verb === 'create' || (verb === 'patch' && !existed);
      this.onWrite({ verb, type, key, answer, created });
      for (const due of this.atWrites.filter((a) => a.at === this.committedWrites)) due.run();
      if (this.crashAt !== undefined && this.committedWrites >= this.crashAt) this.kill();
    }
    // Died while the request was in flight: the answer never arrives.
    if (this.isDead) throw new ProcessCrashed('the process died before the answer arrived');
    if (injected === 'timeout') throw injectedError('timeout');
    return answer;
  }

  private async openWatch(
    type: ResourceType,
    options: WatchOptions,
    callbacks: WatchCallbacks<KubeObject>,
  ): Promise<WatchHandle> {
    const at = this.staleAt;
    if (at !== undefined && options.sendInitialEvents)
      return this.openStaleWatchList(type, options, callbacks, at);
    const w: ProcessWatch = {
      callbacks,
      handle: undefined,
      held: this.holding ? [] : undefined,
      closed: false,
    };
    const inner: WatchCallbacks<KubeObject> = {
      omitManagedFields: callbacks.omitManagedFields,
      onEvent: (event) => (w.held ? w.held.push(event) : this.deliver(w, event)),
      onClose: (error) => (w.held ? w.held.push({ close: error }) : this.deliver(w, { close: error })),
    };
    this.watches.add(w);
    w.handle = await this.cluster.watch(type, options, inner);
    return { stop: () => w.handle?.stop() };
  }

  /**
   * A watch-list while stale: the initial events are the snapshot's (as a lagging watch cache
   * serves them), then the changes since, held until the window ends.
   */
  private async openStaleWatchList(
    type: ResourceType,
    options: WatchOptions,
    callbacks: WatchCallbacks<KubeObject>,
    at: string,
  ): Promise<WatchHandle> {
    const { sendInitialEvents: _s, resourceVersionMatch: _m, ...rest } = options;
    const snapshot = await this.cluster.list(type, {
      ...rest,
      resourceVersion: at,
      resourceVersionMatch: 'Exact',
    });
    const w: ProcessWatch = { callbacks, handle: undefined, held: [], closed: false };
    this.watches.add(w);
    for (const object of snapshot.items) callbacks.onEvent({ type: 'ADDED', object });
    callbacks.onEvent({
      type: 'BOOKMARK',
      object: {
        apiVersion: apiVersionOf(type),
        kind: type.kind,
        metadata: { resourceVersion: at, annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    });
    w.handle = await this.cluster.watch(
      type,
      { ...rest, resourceVersion: at },
      {
        omitManagedFields: callbacks.omitManagedFields,
        onEvent: (event) => (w.held ? w.held.push(event) : this.deliver(w, event)),
        onClose: (error) => (w.held ? w.held.push({ close: error }) : this.deliver(w, { close: error })),
      },
    );
    return { stop: () => w.handle?.stop() };
  }

  private deliver(w: ProcessWatch, e: Held): void {
    if (w.closed || this.isDead) return;
    if ('close' in e) {
      w.closed = true;
      this.watches.delete(w);
      w.callbacks.onClose(e.close);
    } else w.callbacks.onEvent(e);
  }

  /** The held events are gone: the server says the watch is too old, so the cache relists. */
  private forceRelist(w: ProcessWatch, held: readonly Held[]): void {
    const closing = held.find((e) => 'close' in e);
    if (!closing) {
      w.callbacks.onEvent({
        type: 'ERROR',
        status: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' },
      });
    }
    this.deliver(w, closing ?? { close: undefined });
    w.handle?.stop();
  }
}
