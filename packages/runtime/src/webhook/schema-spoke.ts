/**
 * A spoke that differs from its hub by schema, as most served-for-compatibility versions do: the
 * fields both schemas hold are copied, a few paths whose shape differs are transformed, and what
 * one side cannot hold travels in an annotation of the other (as Cluster API's providers keep
 * `conversion-data`), so a round trip through either version loses nothing.
 *
 * A transformed value is restored from the annotation only while the other side's value is still
 * the one it was converted to: an edit made in the other version wins over the stashed original.
 */
import type { KubeObject } from '../api/types.js';
import type { Spoke } from './conversion.js';

/** An OpenAPI v3 schema as a CRD holds it (only the structure is read). */
export type OpenApiSchema = {
  properties?: Record<string, OpenApiSchema>;
  items?: OpenApiSchema;
  additionalProperties?: OpenApiSchema | boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  [key: string]: unknown;
};

/** A path whose value changes shape between the versions. */
export interface PathTransform {
  /** From the object's root, e.g. `['status', 'conditions']`. */
  path: string[];
  /** The spoke's value as the hub holds it (undefined: absent on the hub). */
  toHub(value: unknown): unknown;
  /** The hub's value as the spoke holds it. */
  fromHub(value: unknown): unknown;
}

/** Options of {@link schemaSpoke}. */
export interface SchemaSpokeOptions {
  /** The hub version's `openAPIV3Schema.properties` (at least `spec`, and `status` if any). */
  hub: Record<string, OpenApiSchema>;
  /** The spoke version's, likewise. */
  spoke: Record<string, OpenApiSchema>;
  /** The annotation carrying what the other side cannot hold, e.g. `example.com/conversion-data`. */
  annotation: string;
  transforms?: PathTransform[];
}

/** One value kept for the way back; with `guard`, kept only while the other side still holds it. */
interface Kept {
  path: Array<string | number>;
  value: unknown;
  guard?: unknown;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Splits `value` into what `schema` holds and the paths it does not (appended to `rest`).
 * Exported for its property tests.
 */
export function splitBySchema(
  value: unknown,
  schema: OpenApiSchema | undefined,
  path: Array<string | number>,
  rest: Kept[],
): unknown {
  if (schema === undefined) {
    rest.push({ path, value });
    return undefined;
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] || schema.additionalProperties) return value;
  if (Array.isArray(value))
    return schema.items ? value.map((v, i) => splitBySchema(v, schema.items, [...path, i], rest)) : value;
  if (!isObject(value) || !schema.properties) return value;
  const kept: Json = {};
  for (const [key, v] of Object.entries(value)) {
    const part = splitBySchema(v, schema.properties[key], [...path, key], rest);
    if (part !== undefined) kept[key] = part;
  }
  return kept;
}

const getPath = (o: unknown, path: Array<string | number>): unknown =>
  path.reduce<unknown>((at, key) => (at as Record<string | number, unknown> | undefined)?.[key], o);

/** Sets `path` in `o`, making the objects on the way; an array index that is not there is skipped. */
function setPath(o: Json, path: Array<string | number>, value: unknown): void {
  let at: Record<string | number, unknown> = o;
  for (const [i, key] of path.entries()) {
    const last = i === path.length - 1;
    if (typeof key === 'number' && (!Array.isArray(at) || key >= at.length)) return;
    if (last) {
      if (value === undefined) delete at[key];
      else at[key] = value;
      return;
    }
    if (at[key] === undefined) at[key] = {};
    if (typeof at[key] !== 'object' || at[key] === null) return;
    at = at[key] as Record<string | number, unknown>;
  }
}

function deletePath(o: Json, path: string[]): void {
  const parent = getPath(o, path.slice(0, -1));
  if (isObject(parent)) delete parent[path.at(-1) as string];
}

/** Reads and removes the kept values from `o`'s annotations. */
function takeKept(o: KubeObject, annotation: string): Kept[] {
  const raw = o.metadata?.annotations?.[annotation];
  if (raw === undefined) return [];
  const annotations = { ...o.metadata.annotations };
  delete annotations[annotation];
  o.metadata = { ...o.metadata, annotations };
  try {
    const kept = JSON.parse(raw) as unknown;
    return Array.isArray(kept) ? (kept as Kept[]) : [];
  } catch {
    return []; // a hand-edited annotation: what it held is lost, the object converts
  }
}

/** Converts `from` into the other version's shape; `direction` picks the transforms' side. */
function convertBody(
  from: KubeObject,
  target: Record<string, OpenApiSchema>,
  options: SchemaSpokeOptions,
  direction: 'toHub' | 'fromHub',
): KubeObject {
  const restore = takeKept(from, options.annotation);
  const source = from as unknown as Json;
  const body: Json = {};
  const keep: Kept[] = [];
  const transforms = options.transforms ?? [];
  const rest = structuredClone(source);
  for (const t of transforms) deletePath(rest, t.path);
  for (const field of Object.keys(rest)) {
    if (['apiVersion', 'kind', 'metadata'].includes(field)) continue;
    const part = splitBySchema(rest[field], target[field], [field], keep);
    if (part !== undefined) body[field] = part;
  }
  for (const t of transforms) {
    const value = getPath(source, t.path);
    if (value === undefined) continue;
    const converted = t[direction](value);
    if (converted !== undefined) setPath(body, t.path, converted);
    if (!same(t[direction === 'toHub' ? 'fromHub' : 'toHub'](converted), value))
      keep.push({ path: t.path, value, guard: converted ?? null });
  }
  for (const k of restore) {
    // A transformed value comes back only if the side it was converted to still holds it.
    if (k.guard !== undefined && !same(getPath(source, k.path) ?? null, k.guard)) continue;
    setPath(body, k.path, k.value);
  }
  const annotations = { ...from.metadata?.annotations };
  if (keep.length > 0) annotations[options.annotation] = JSON.stringify(keep);
  return {
    ...body,
    apiVersion: from.apiVersion,
    kind: from.kind,
    metadata: { ...from.metadata, annotations },
  };
}

/** A {@link Spoke} that converts by the two versions' schemas (see the module's comment). */
export function schemaSpoke<Hub extends KubeObject, S extends KubeObject>(
  options: SchemaSpokeOptions,
): Spoke<Hub, S> {
  return {
    toHub: (object) => convertBody(object, options.hub, options, 'toHub') as Hub,
    fromHub: (hub) => convertBody(hub, options.spoke, options, 'fromHub') as S,
  };
}
