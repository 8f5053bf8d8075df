import type { KubeObject } from '../api/types.js';

/**
 * Filters events before they enqueue anything. A missing method lets that event type through.
 * All predicates of a source must pass.
 */
export interface Predicate<T extends KubeObject = KubeObject> {
  create?(object: T): boolean;
  update?(old: T, object: T): boolean;
  delete?(object: T): boolean;
}

const sameRecord = (
  a: Record<string, string> | undefined,
  b: Record<string, string> | undefined,
): boolean => {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => a?.[k] === b?.[k]);
};

/** Passes updates that change `metadata.generation` (spec changes), so status writes do not loop. */
export const generationChanged: Predicate = {
  update: (old, object) => old.metadata.generation !== object.metadata.generation,
};

/** Passes updates that change labels. */
export const labelsChanged: Predicate = {
  update: (old, object) => !sameRecord(old.metadata.labels, object.metadata.labels),
};

/** Passes updates that change annotations. */
export const annotationsChanged: Predicate = {
  update: (old, object) => !sameRecord(old.metadata.annotations, object.metadata.annotations),
};

/** Passes updates whose resourceVersion changed; drops periodic resyncs (old === new). */
export const resourceVersionChanged: Predicate = {
  update: (old, object) => old.metadata.resourceVersion !== object.metadata.resourceVersion,
};

/** Passes an event when any of `predicates` passes it. */
export function or<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => predicates.some((p) => p.create?.(o) ?? true),
    update: (old, o) => predicates.some((p) => p.update?.(old, o) ?? true),
    delete: (o) => predicates.some((p) => p.delete?.(o) ?? true),
  };
}

/** A predicate from one function applied to the object of every event (the new one on update). */
export function predicate<T extends KubeObject>(fn: (object: T) => boolean): Predicate<T> {
  return { create: fn, update: (_old, o) => fn(o), delete: fn };
}
