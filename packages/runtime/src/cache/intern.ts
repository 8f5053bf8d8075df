/**
 * One instance of the metadata strings many cached objects repeat: JSON.parse gives every object
 * its own copy of a creation timestamp (objects made in the same second share it), of a namespace
 * or an apiVersion of 13 characters or more (V8 shares only shorter ones), some 40 bytes each.
 */
import type { KubeObject } from '../api/types.js';

/** Bounded: cleared when full, so a stream of distinct values cannot grow it without end. */
const MAX_POOLED = 10_000;
const pool = new Map<string, string>();

/** The pooled instance of `s` (`s` itself the first time). */
export function intern(s: string): string {
  const pooled = pool.get(s);
  if (pooled !== undefined) return pooled;
  if (pool.size >= MAX_POOLED) pool.clear();
  pool.set(s, s);
  return s;
}

/**
 * Replaces, in place, `apiVersion`, `kind`, `metadata.namespace` and `metadata.creationTimestamp`
 * by their pooled instances (equal strings: nothing a reader can tell). For objects the cache
 * owns and has not frozen yet; a frozen one is returned as it is.
 */
export function internCommonStrings<T extends KubeObject>(object: T): T {
  if (Object.isFrozen(object)) return object;
  if (typeof object.apiVersion === 'string') object.apiVersion = intern(object.apiVersion);
  if (typeof object.kind === 'string') object.kind = intern(object.kind);
  const metadata = object.metadata;
  if (metadata === undefined || metadata === null || Object.isFrozen(metadata)) return object;
  if (typeof metadata.namespace === 'string') metadata.namespace = intern(metadata.namespace);
  if (typeof metadata.creationTimestamp === 'string')
    metadata.creationTimestamp = intern(metadata.creationTimestamp);
  return object;
}
