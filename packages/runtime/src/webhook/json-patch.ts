/**
 * The JSON patch a mutating webhook answers with, computed from the object the API server sent and
 * the object a defaulter returned, so that defaulters deal in objects and never in patches.
 */

/** One RFC 6902 operation of the kinds {@link createJsonPatch} emits. */
export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  /** An RFC 6901 pointer (`~` and `/` in keys escaped as `~0` and `~1`). */
  path: string;
  value?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const escapeToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((v, i) => sameJson(v, other[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) =>
        Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

function diff(from: unknown, to: unknown, path: string, out: PatchOperation[]): void {
  if (sameJson(from, to)) return;
  if (!isObject(from) || !isObject(to)) {
    // Arrays and scalars are replaced whole: list element identity is not ours to guess.
    out.push({ op: 'replace', path, value: to });
    return;
  }
  for (const key of Object.keys(from)) {
    if (!Object.hasOwn(to, key)) out.push({ op: 'remove', path: `${path}/${escapeToken(key)}` });
  }
  for (const [key, value] of Object.entries(to)) {
    const at = `${path}/${escapeToken(key)}`;
    if (!Object.hasOwn(from, key)) out.push({ op: 'add', path: at, value });
    else diff(from[key], value, at, out);
  }
}

/**
 * The operations that turn `from` into `to`. Both are read as JSON (`undefined` fields dropped, as
 * `JSON.stringify` drops them), so applying the result to `from` gives exactly `JSON(to)`.
 * Empty when nothing changed.
 */
export function createJsonPatch(from: unknown, to: unknown): PatchOperation[] {
  const a: unknown = JSON.parse(JSON.stringify(from) ?? 'null');
  const b: unknown = JSON.parse(JSON.stringify(to) ?? 'null');
  const out: PatchOperation[] = [];
  diff(a, b, '', out);
  return out;
}
