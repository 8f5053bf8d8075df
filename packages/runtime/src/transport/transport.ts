import type {
  DeleteOptions,
  KubeObject,
  ListOptions,
  ListResult,
  ObjectKey,
  PatchOptions,
  PatchType,
  ResourceType,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from '../api/types.js';

/** A watch in progress. */
export interface WatchHandle {
  /** Ends the watch; `onClose` is then called once with no error. Idempotent. */
  stop(): void;
}

/** Callbacks of a watch. */
export interface WatchCallbacks<T extends KubeObject> {
  /** Called for every event, in order. ERROR events carry the server's status (410 for Gone). */
  onEvent(event: WatchEvent<T>): void;
  /**
   * Called exactly once when the stream ends: with no error for a clean end (server timeout,
   * `stop()`), with an {@link ApiError} or network error otherwise.
   */
  onClose(error?: Error): void;
  /**
   * The receiver drops `metadata.managedFields` of every event's object (the cache does): a
   * transport may then drop it from the object it has just decoded, which nobody else holds yet,
   * sparing the receiver a copy without it. The receiver must not rely on it being gone.
   */
  readonly omitManagedFields?: boolean;
}

/**
 * The seam between the runtime and a Kubernetes API server: raw REST verbs on plain JSON objects.
 * `HttpTransport` speaks to a real server; the test kit's in-memory cluster implements the same
 * interface, so the client, reflectors and controllers run unchanged on both.
 *
 * Every method rejects with an `ApiError` (see errors.ts) for a non-2xx answer.
 */
export interface ApiTransport {
  get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, subresource?: string): Promise<T>;
  list<T extends KubeObject>(type: ResourceType<T>, options?: ListOptions): Promise<ListResult<T>>;
  /** Starts a watch; resolves once the server accepted it (rejects on an HTTP error before streaming). */
  watch<T extends KubeObject>(
    type: ResourceType<T>,
    options: WatchOptions,
    callbacks: WatchCallbacks<T>,
  ): Promise<WatchHandle>;
  create<T extends KubeObject>(type: ResourceType<T>, object: T, options?: WriteOptions): Promise<T>;
  /** PUT; with `options.subresource = 'status'` writes only the status. */
  update<T extends KubeObject>(type: ResourceType<T>, object: T, options?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    patchType: PatchType,
    body: unknown,
    options?: PatchOptions,
  ): Promise<T>;
  /** Resolves with the object as the server returned it (with a deletionTimestamp) or its Status. */
  delete<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    options?: DeleteOptions,
  ): Promise<unknown>;
  /**
   * POSTs `body` to a subresource of an existing object, e.g. a Pod's `eviction`; resolves with the
   * server's answer.
   */
  createSubresource(type: ResourceType, key: ObjectKey, subresource: string, body: unknown): Promise<unknown>;
}
