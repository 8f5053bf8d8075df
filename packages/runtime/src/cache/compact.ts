import type { KubeObject } from '../api/types.js';

// V8 may hand out long strings parsed by JSON.parse as slices of the whole response text: one cached
// object would then pin a 10 MB list body (managedFields included) in memory. Strings this long or
// longer are copied; shorter ones are always stored flat by V8.
const SLICE_MIN_LENGTH = 13;

const copyString = (s: string): string =>
  s.length < SLICE_MIN_LENGTH ? s : Buffer.from(s, 'utf8').toString('utf8');

function compactValue(value: unknown): unknown {
  if (typeof value === 'string') return copyString(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(compactValue);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = compactValue((value as Record<string, unknown>)[key]);
  return out;
}

/**
 * The default transform before caching: a copy of the object without `metadata.managedFields`
 * (which nobody reads from a cache and which is often a third of an object), whose strings own their
 * memory instead of pointing into the response they were parsed from, so the response can be freed.
 */
export function compactForCache<T extends KubeObject>(object: T): T {
  const { managedFields: _dropped, ...metadata } = object.metadata ?? {};
  const out = compactValue({ ...object, metadata }) as T;
  return out;
}
