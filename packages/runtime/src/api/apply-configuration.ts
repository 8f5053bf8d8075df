import type { KeyedList } from './keyed-list.js';
import type { KubeObject, ObjectMeta } from './types.js';

/**
 * One value of an apply configuration: objects deep-partial, keyed lists' elements with their key
 * fields required (the server merges them by key), other lists and scalars as they are.
 */
export type ApplyValue<V> =
  V extends KeyedList<infer E, infer K>
    ? Array<ApplyFields<E> & Pick<E, K & keyof E>>
    : V extends ReadonlyArray<infer E>
      ? Array<ApplyValue<E>>
      : V extends object
        ? ApplyFields<V>
        : V;

/** Every field of an object optional, recursively: an apply owns only the fields it names. */
export type ApplyFields<T> = { [P in keyof T]?: ApplyValue<T[P]> };

/**
 * An apply configuration: the fields this manager wants to own, and nothing else. Every field is
 * optional at every depth (`spec.template.spec.containers[0].image` may be set alone), except
 * `metadata` (its name at least) and the keys of keyed lists (a container's `name`). `apiVersion`
 * and `kind` come from the resource type when left out.
 * @example
 * const image: ApplyConfiguration<Deployment> = {
 *   metadata: { name: 'web', namespace: 'default' },
 *   spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
 * };
 */
export type ApplyConfiguration<T extends KubeObject> = {
  [P in keyof T as P extends 'metadata' ? never : P]?: ApplyValue<T[P]>;
} & { metadata: ObjectMeta };
