import type { KubeObject, ObjectMeta } from './types.js';

/**
 * One value of an apply configuration: objects deep-partial; a keyed list's elements deep-partial
 * but for their key fields (the server merges elements by key); any other list whole, as the
 * server replaces it whole (atomic); scalars as they are. `__listMapKeys` is KeyedList's phantom.
 */
export type ApplyValue<V> =
  V extends ReadonlyArray<infer E>
    ? V extends { readonly __listMapKeys?: infer K }
      ? unknown extends K
        ? E[]
        : Array<ApplyFields<E> & Pick<E, K & keyof E>>
      : E[]
    : V extends object
      ? ApplyFields<V>
      : V;

/** Every field of an object optional, recursively: an apply owns only the fields it names. */
export type ApplyFields<T> = { [P in keyof T]?: ApplyValue<T[P]> };

/**
 * An apply configuration: the fields this manager wants to own, and nothing else. Every field is
 * optional at every depth (`spec.template.spec.containers[0].image` may be set alone), except
 * `metadata` (its name at least), the keys of keyed lists (a container's `name`) and the elements
 * of atomic lists, which the server replaces whole. `apiVersion` and `kind` come from the resource
 * type when left out.
 * @example
 * const image: ApplyConfiguration<Deployment> = {
 *   metadata: { name: 'web', namespace: 'default' },
 *   spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
 * };
 */
export type ApplyConfiguration<T extends KubeObject> = {
  [P in keyof T as P extends 'metadata' ? never : P]?: ApplyValue<T[P]>;
} & { metadata: ObjectMeta };
