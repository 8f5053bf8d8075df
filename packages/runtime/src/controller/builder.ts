import { type KubeObject, metadataOnly, type ResourceType } from '../api/types.js';
import type { InformerCache, InformerRestriction } from '../cache/informer-cache.js';
import type { Defaulter, Validator } from '../webhook/admission.js';
import type { AdmissionOptions } from '../webhook/configurations.js';
import { Controller, type ControllerDeps, type ControllerOptions, type Source } from './controller.js';
import { type ObjectReader, type ObjectReconciler, objectReconciler } from './object-reconciler.js';
import {
  OWNER_WRITE_VERBS,
  type Permission,
  type Permissions,
  permissionOn,
  READ_VERBS,
  type Verb,
} from './permissions.js';
import type { Predicate } from './predicates.js';
import type { ReconcileFunction, Reconciler } from './reconciler.js';
import { type Request, requestFor } from './request.js';

/** The admission webhooks a builder declares for its `for` kind; the manager's builder serves them. */
export interface AdmissionWebhooks {
  defaulter?: { defaulter: Defaulter<KubeObject>; options?: AdmissionOptions };
  validator?: { validator: Validator<KubeObject>; options?: AdmissionOptions };
}

/** Options of one watched kind. */
export interface SourceOptions<T extends KubeObject> extends InformerRestriction {
  predicates?: Predicate<T>[];
  /**
   * Watch and cache only the objects' metadata (`PartialObjectMetadata`, as controller-runtime's
   * `OnlyMetadata`): for kinds whose bodies are large (Secrets, ConfigMaps, Pods at scale). The
   * predicates and map functions then see metadata only; `client.get(metadataOnly(Kind), key)`
   * reads it from the cache.
   */
  metadataOnly?: boolean;
  /** Watch these namespaces (one informer each) instead of the manager's or the kind's. */
  namespaces?: readonly string[];
  /**
   * The verbs the generated RBAC grants on this kind: default list and watch (the informer's; cached
   * gets send nothing), and for `owns` create, update, patch and delete as well. Name fewer when the
   * reconciler needs fewer.
   */
  verbs?: readonly Verb[];
}

/** What a builder takes besides the cache: its controller's, and where reads and permissions go. */
export interface BuilderDeps extends ControllerDeps {
  /** How `buildObjects` reads the object (the manager's client). */
  reader?: ObjectReader;
  /** Where the builder records what its controller needs (the manager's, for `rbacFor`). */
  permissions?: Permissions;
}

/** What a builder applies to sources that name none: the manager's namespace or namespaces. */
export interface DefaultRestriction extends InformerRestriction {
  /** Several namespaces (a list, not one or all): one informer per namespace and kind. */
  namespaces?: readonly string[];
}

const groupOf = (apiVersion: string): string =>
  apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';

/**
 * The requests for an owned object: its controller owner, if that owner is of kind `owner`.
 * Non-controller owner references are ignored, as in controller-runtime's `Owns`.
 */
export function controllerOwnerRequests(owner: ResourceType, object: KubeObject): Request[] {
  const ref = object.metadata.ownerReferences?.find((r) => r.controller === true);
  if (!ref || ref.kind !== owner.kind || groupOf(ref.apiVersion) !== owner.group) return [];
  const namespace = owner.namespaced ? object.metadata.namespace : undefined;
  return [namespace ? { namespace, name: ref.name } : { name: ref.name }];
}

/**
 * Declares a controller: the kind it reconciles (`for`), the kinds it creates and owns (`owns`),
 * other kinds that affect it (`watches` with a map function), predicates and options.
 * Informers come from the shared cache, so controllers watching the same kind share one.
 *
 * `for` is optional: a controller whose keys are not objects of one kind (a single key for the
 * whole cluster, say) is `named` and built from `watches` alone. `owns` needs `for`: the owner
 * kind is what an owned object's events map to.
 *
 * @example
 * new ControllerBuilder(cache)
 *   .for(Widget, { predicates: [generationChanged] })
 *   .owns(ConfigMap)
 *   .build(new WidgetReconciler(client));
 */
export class ControllerBuilder<F extends KubeObject = KubeObject> {
  private forType: ResourceType | undefined;
  /** What the controller needs, recorded on build. */
  private readonly needs: Permission[] = [];
  private name: string | undefined;
  private options: ControllerOptions = {};
  private readonly pending: Array<(forType: ResourceType | undefined) => Source[]> = [];
  /** Filters applied to the events of every source, before each source's own predicates. */
  private readonly eventFilters: Predicate[] = [];
  /** Declared by withDefaulter/withValidator; registered on build by the manager's builder. */
  protected readonly admission: AdmissionWebhooks = {};

  constructor(
    private readonly cache: InformerCache,
    private readonly deps: BuilderDeps = {},
    /** Applied to every informer that names no namespace (the manager's namespace restriction). */
    private readonly defaultRestriction: DefaultRestriction = {},
  ) {}

  /** The kind this controller reconciles: each of its events enqueues the object's own key. */
  for<T extends KubeObject>(type: ResourceType<T>, options: SourceOptions<T> = {}): ControllerBuilder<T> {
    if (this.forType) throw new Error('for() may be called once');
    this.forType = type;
    this.need(type, options.verbs ?? READ_VERBS, options);
    this.pending.unshift(() =>
      this.source(type, options, (object) => [requestFor(object)], `for ${type.kind}`),
    );
    return this as unknown as ControllerBuilder<T>;
  }

  /** A kind this controller creates and owns: each event enqueues the object's controller owner. */
  owns<T extends KubeObject>(type: ResourceType<T>, options: SourceOptions<T> = {}): this {
    this.need(type, options.verbs ?? [...READ_VERBS, ...OWNER_WRITE_VERBS], options);
    this.pending.push((forType) => {
      if (!forType) throw new Error(`owns(${type.kind}) needs for(kind): the owner kind`);
      return this.source(
        type,
        options,
        (object) => controllerOwnerRequests(forType, object),
        `owns ${type.kind}`,
      );
    });
    return this;
  }

  /** Any other kind: `map` says which requests an event of one of its objects enqueues. */
  watches<T extends KubeObject>(
    type: ResourceType<T>,
    map: (object: T) => Request[],
    options: SourceOptions<T> = {},
  ): this {
    this.need(type, options.verbs ?? READ_VERBS, options);
    this.pending.push(() => this.source(type, options, map, `watches ${type.kind}`));
    return this;
  }

  /**
   * Filters the events of every source (`for`, `owns` and `watches`, whichever order they were
   * declared in), as controller-runtime's `WithEventFilter`: an event enqueues only when every
   * filter and the source's own predicates pass it.
   */
  withEventFilter(filter: Predicate): this {
    this.eventFilters.push(filter);
    return this;
  }

  /**
   * The reconciler writes the `for` kind's status subresource: RBAC grants these verbs on it
   * (default update and patch; `['patch']` for a reconciler that only patches it).
   */
  writesStatus(verbs: readonly Verb[] = ['update', 'patch']): this {
    this.pending.push((forType) => {
      if (!forType) throw new Error('writesStatus() needs for(kind)');
      this.needs.push(permissionOn(forType, verbs, { subresource: 'status' }));
      return [];
    });
    return this;
  }

  /**
   * Declares what the reconciler does beyond what its sources imply (a kind it reads directly,
   * patches without owning, a subresource it posts to), for the generated RBAC; `why` is written
   * beside the rule.
   */
  permits(
    type: ResourceType,
    verbs: readonly Verb[],
    options: Omit<Permission, 'group' | 'resource' | 'verbs'> & { subresource?: string } = {},
  ): this {
    this.needs.push(permissionOn(type, verbs, options));
    return this;
  }

  /** Names the controller (metrics, logs); default: the `for` kind in lower case; needed without `for`. */
  named(name: string): this {
    this.name = name;
    return this;
  }

  /** Concurrency, rate limiter, cache sync timeout, reconcile timeout. */
  withOptions(options: ControllerOptions): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  /**
   * Defaults the `for` kind's objects on create and update through a mutating webhook the manager
   * serves on `/mutate-<group>-<version>-<kind>` (needs `manager.controllerBuilder()`).
   */
  withDefaulter<T extends KubeObject>(defaulter: Defaulter<T>, options?: AdmissionOptions): this {
    this.admission.defaulter = { defaulter: defaulter as Defaulter<KubeObject>, options };
    return this;
  }

  /**
   * Validates the `for` kind's creates, updates and deletes through a validating webhook the manager
   * serves on `/validate-<group>-<version>-<kind>` (needs `manager.controllerBuilder()`).
   */
  withValidator<T extends KubeObject>(validator: Validator<T>, options?: AdmissionOptions): this {
    this.admission.validator = { validator: validator as Validator<KubeObject>, options };
    return this;
  }

  /** Builds the controller; start it with `controller.start(signal)` (the manager does). */
  build(reconciler: Reconciler | ReconcileFunction): Controller {
    const forType = this.forType;
    const name = this.name ?? forType?.kind.toLowerCase();
    if (!name) throw new Error('a controller without for(kind) needs named(name)');
    if (this.pending.length === 0)
      throw new Error(`controller ${name} watches nothing: add for() or watches()`);
    if (this.admission.defaulter || this.admission.validator) {
      if (!forType) throw new Error(`controller ${name}: withDefaulter/withValidator need for(kind)`);
      this.registerWebhooks(forType, this.admission);
    }
    const r: Reconciler = typeof reconciler === 'function' ? { reconcile: reconciler } : reconciler;
    const controller = new Controller(name, r, this.options, this.deps);
    for (const make of this.pending) for (const source of make(forType)) controller.watch(source);
    for (const permission of this.needs) this.deps.permissions?.add(permission);
    return controller;
  }

  /**
   * Builds the controller around a reconciler handed the `for` kind's object, read from the cache
   * (see {@link ObjectReconciler}: gone objects are skipped, deleting ones go to its `cleanup`).
   * A reconciler that keeps a finalizer (`withFinalizer`) gets its RBAC: patch on the kind,
   * update on its `finalizers` subresource.
   */
  buildObjects(reconciler: ObjectReconciler<F>): Controller {
    const forType = this.forType as ResourceType<F> | undefined;
    if (!forType) throw new Error('buildObjects() needs for(kind): the kind of the objects');
    const reader = this.deps.reader;
    if (!reader) throw new Error('buildObjects() needs a reader: build with manager.controllerBuilder()');
    if (reconciler.finalizer) {
      const why = `keeps the finalizer ${reconciler.finalizer}`;
      this.needs.push(permissionOn(forType, ['patch'], { why }));
      this.needs.push(permissionOn(forType, ['update'], { subresource: 'finalizers', why }));
    }
    return this.build(objectReconciler(reader, forType, reconciler));
  }

  /** Serves the declared webhooks; only a manager's builder has a server to serve them on. */
  protected registerWebhooks(_forType: ResourceType, _webhooks: AdmissionWebhooks): void {
    throw new Error(
      'withDefaulter/withValidator need a webhook server: build with manager.controllerBuilder()',
    );
  }

  /** Records the verbs a source needs, in the namespaces it names (a Role each) or the cluster. */
  private need<T extends KubeObject>(
    type: ResourceType<T>,
    verbs: readonly Verb[],
    options: SourceOptions<T>,
  ) {
    const own = options.namespace ? [options.namespace] : options.namespaces;
    if (!type.namespaced || !own?.length) this.needs.push(permissionOn(type, verbs));
    else for (const namespace of own) this.needs.push(permissionOn(type, verbs, { namespace }));
  }

  private source<T extends KubeObject>(
    type: ResourceType<T>,
    options: SourceOptions<T>,
    toRequests: (object: T) => Request[],
    description: string,
  ): Source[] {
    const { predicates, metadataOnly: onlyMetadata, namespaces, verbs: _verbs, ...restriction } = options;
    const watched = (onlyMetadata ? metadataOnly(type) : type) as ResourceType<T>;
    const { namespaces: defaultNamespaces, ...defaults } = this.defaultRestriction;
    if (defaults.namespace === undefined) delete defaults.namespace;
    const several = sourceNamespaces(
      type.namespaced,
      restriction.namespace,
      namespaces,
      this.cache.kindOptions(type)?.namespaces,
      defaultNamespaces,
    );
    const filters = [...this.eventFilters, ...(predicates ?? [])];
    const where = several ? several.map((namespace) => ({ namespace })) : [{}];
    return where.map((ns) => {
      const informer = this.cache.informerFor(watched, { ...defaults, ...restriction, ...ns });
      return { informer, toRequests, predicates: filters, description } as unknown as Source;
    });
  }
}

/**
 * The namespaces a source watches one informer each of, most specific first: the source's own
 * namespace (then: none here), its list, its kind's, the manager's; undefined for one informer
 * (a cluster-scoped kind, or no list anywhere).
 */
export function sourceNamespaces(
  namespaced: boolean,
  own: string | undefined,
  ...lists: Array<readonly string[] | undefined>
): readonly string[] | undefined {
  if (!namespaced || own) return undefined;
  const list = lists.find((l) => l !== undefined);
  return list?.length ? [...new Set(list)] : undefined;
}
