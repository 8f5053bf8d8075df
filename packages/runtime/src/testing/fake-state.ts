import { type ApiError, apiError } from '../api/errors.js';
import { apiVersionOf, type KubeObject, type ObjectKey, type ResourceType } from '../api/types.js';
import { deepFreeze } from '../cache/deep-freeze.js';
import type { Clock } from '../clock.js';

/** How the in-memory cluster treats a kind. */
export interface KindOptions {
  /**
   * Whether the kind has a `status` subresource: then main-resource writes ignore `status`, status
   * writes change only `status`, and create drops `status`. Default: true, except for built-in kinds
   * known to have no status (ConfigMap, Secret, ...).
   */
  statusSubresource?: boolean;
}

/** The objects of one kind. */
export interface KindState {
  readonly type: ResourceType;
  readonly statusSubresource: boolean;
  // Invariant: every stored object is deep-frozen and is the latest state of its key.
  readonly objects: Map<string, KubeObject>;
}

/** One change, as etcd's history keeps it until compaction. */
export interface HistoryEntry {
  readonly rv: number;
  readonly kindKey: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubeObject;
  /** The state before this change (absent for ADDED). */
  readonly prev?: KubeObject;
}

// Built-in kinds without a status subresource.
const NO_STATUS = new Set([
  '/ConfigMap',
  '/Secret',
  '/ServiceAccount',
  '/Endpoints',
  '/Event',
  'events.k8s.io/Event',
  'coordination.k8s.io/Lease',
  'rbac.authorization.k8s.io/Role',
  'rbac.authorization.k8s.io/RoleBinding',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'discovery.k8s.io/EndpointSlice',
]);

export const kindKeyOf = (type: ResourceType) => `${type.group}/${type.plural}`;
export const objectKeyOf = (namespace: string | undefined, name: string) =>
  namespace ? `${namespace}/${name}` : name;
export const clone = <T>(v: T): T => structuredClone(v);

/**
 * The fake cluster's storage, as etcd and the API server's registry keep it: the objects of each
 * kind, one global revision, and the history of changes since the last compaction, from which any
 * older state can be rebuilt. Every change goes through {@link ClusterState.commit}.
 */
export class ClusterState {
  private readonly kinds = new Map<string, KindState>();
  /** The revision of the last change; resourceVersions are its decimal strings. */
  revision = 100;
  /** Changes at or before this revision are forgotten. */
  compactedAt = 0;
  // Invariant: ordered by rv; holds every change after `compactedAt`.
  history: HistoryEntry[] = [];
  private uidCounter = 0;
  private randomState: number;

  constructor(
    readonly clock: Clock,
    seed: number,
    /** Told of every committed change, in order (the watches). */
    private readonly onCommit: (entry: HistoryEntry) => void,
  ) {
    this.randomState = seed;
  }

  /** Makes a kind known; idempotent. */
  registerKind(type: ResourceType, options: KindOptions = {}): void {
    const key = kindKeyOf(type);
    if (this.kinds.has(key)) return;
    const statusSubresource = options.statusSubresource ?? !NO_STATUS.has(`${type.group}/${type.kind}`);
    this.kinds.set(key, { type, statusSubresource, objects: new Map() });
  }

  /** The state of a registered kind; 404 for others. */
  kind(type: ResourceType): KindState {
    const k = this.kinds.get(kindKeyOf(type));
    if (!k)
      throw apiError(404, 'NotFound', 'the server could not find the requested resource', {
        kind: type.kind,
        group: type.group,
      });
    return k;
  }

  /** The type registered under a kind key. */
  typeOf(kindKey: string): ResourceType {
    return (this.kinds.get(kindKey) as KindState).type;
  }

  keyFor(type: ResourceType, key: ObjectKey): string {
    return objectKeyOf(type.namespaced ? key.namespace : undefined, key.name);
  }

  notFound(type: ResourceType, name: string, subresource?: string): ApiError {
    const what = subresource ? `${type.plural}/${subresource}` : type.plural;
    const group = type.group ? `${what}.${type.group}` : what;
    return apiError(404, 'NotFound', `${group} "${name}" not found`, {
      name,
      group: type.group,
      kind: type.plural,
    });
  }

  mustGet(type: ResourceType, key: ObjectKey): KubeObject {
    const o = this.kind(type).objects.get(this.keyFor(type, key));
    if (!o) throw this.notFound(type, key.name);
    return o;
  }

  timestamp(): string {
    return new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  nextUid(): string {
    const n = (++this.uidCounter).toString(16).padStart(12, '0');
    return `00000000-0000-4000-8000-${n}`;
  }

  nextRandom(): number {
    // mulberry32: tiny, seeded, good enough for name suffixes.
    this.randomState = (this.randomState + 0x6d2b79f5) | 0;
    let t = this.randomState;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A BOOKMARK object carrying the current resourceVersion. */
  bookmark(type: ResourceType): KubeObject {
    return {
      apiVersion: apiVersionOf(type),
      kind: type.kind,
      metadata: { resourceVersion: String(this.revision) },
    };
  }

  /** Stores `object` (or removes the key) under a fresh revision and tells the watches. */
  commit(
    kind: KindState,
    key: string,
    eventType: HistoryEntry['type'],
    object: KubeObject,
    prev: KubeObject | undefined,
  ): KubeObject {
    const rv = ++this.revision;
    const stored = deepFreeze({ ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } });
    if (eventType === 'DELETED') kind.objects.delete(key);
    else kind.objects.set(key, stored);
    const entry: HistoryEntry = { rv, kindKey: kindKeyOf(kind.type), type: eventType, object: stored, prev };
    this.history.push(entry);
    this.onCommit(entry);
    return stored;
  }

  /** Forgets the history up to now; returns the compaction revision. */
  compact(): number {
    this.compactedAt = this.revision;
    this.history = [];
    return this.revision;
  }

  parseRevision(rv: string): number {
    if (!/^[0-9]+$/.test(rv)) throw apiError(400, 'BadRequest', `invalid resourceVersion "${rv}"`);
    return Number(rv);
  }

  gone(rv: number): ApiError {
    return apiError(410, 'Expired', `too old resource version: ${rv} (${this.compactedAt})`);
  }

  /**
   * The objects of a kind as they were at revision `rv`, rebuilt by undoing later history.
   * Possible only back to the compaction point.
   */
  stateAt(kind: KindState, rv: number): Map<string, KubeObject> {
    if (rv < this.compactedAt) throw this.gone(rv);
    const state = new Map(kind.objects);
    const kindKey = kindKeyOf(kind.type);
    for (let i = this.history.length - 1; i >= 0; i--) {
      const e = this.history[i] as HistoryEntry;
      if (e.rv <= rv) break;
      if (e.kindKey !== kindKey) continue;
      const key = objectKeyOf(e.object.metadata.namespace, e.object.metadata.name ?? '');
      if (e.type === 'ADDED') state.delete(key);
      else state.set(key, e.prev as KubeObject);
    }
    return state;
  }
}
