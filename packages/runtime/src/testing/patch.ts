/**
 * The patch formats the in-memory cluster understands: JSON merge patch (RFC 7386) and JSON patch
 * (RFC 6902). Both work on plain JSON and never mutate their inputs. Errors are API errors with the
 * codes a real server answers: 400 for a patch that cannot be read, 422 for one that cannot apply
 * (including a failed `test`).
 */
import { apiError } from '../api/errors.js';
import { isJsonObject, jsonEqual } from '../helpers/json-equal.js';

/** Deep equality of JSON values (one implementation, in the runtime's helpers). */
export { jsonEqual };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** RFC 7386: objects merge key by key, `null` deletes, anything else (arrays too) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw apiError(400, 'BadRequest', `invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const unprocessable = (message: string) => apiError(422, 'Invalid', message);

/** Resolves the parent container of `tokens` in `doc` (which the caller has already copied). */
function parentOf(doc: Json, tokens: string[], pointer: string): { parent: Json; last: string } {
  let cur: Json = doc;
  for (const t of tokens.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(cur)
      ? cur[Number(t)]
      : isJsonObject(cur)
        ? (cur as Record<string, Json>)[t]
        : undefined;
    if (next === undefined) throw unprocessable(`path "${pointer}" does not exist`);
    cur = next;
  }
  return { parent: cur, last: tokens[tokens.length - 1] as string };
}

function getAt(doc: Json, pointer: string): Json {
  let cur: Json | undefined = doc;
  for (const t of parsePointer(pointer)) {
    cur = Array.isArray(cur)
      ? cur[Number(t)]
      : isJsonObject(cur)
        ? (cur as Record<string, Json>)[t]
        : undefined;
    if (cur === undefined) throw unprocessable(`path "${pointer}" does not exist`);
  }
  return cur as Json;
}

function arrayIndex(arr: Json[], token: string, pointer: string, forAdd: boolean): number {
  if (forAdd && token === '-') return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw unprocessable(`invalid array index in "${pointer}"`);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length))
    throw unprocessable(`index out of range in "${pointer}"`);
  return i;
}

function add(doc: Json, pointer: string, value: Json): Json {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, pointer, true), 0, value);
  else if (isJsonObject(parent)) (parent as Record<string, Json>)[last] = value;
  else throw unprocessable(`path "${pointer}" does not exist`);
  return doc;
}

function remove(doc: Json, pointer: string): Json {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return null;
  const { parent, last } = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, pointer, false), 1);
  else if (isJsonObject(parent) && Object.hasOwn(parent, last)) delete (parent as Record<string, Json>)[last];
  else throw unprocessable(`path "${pointer}" does not exist`);
  return doc;
}

/**
 * Applies an RFC 6902 JSON patch. A failing `test` operation (or any operation on a missing path)
 * rejects the whole patch with a 422, as the API server does.
 */
export function jsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations))
    throw apiError(400, 'BadRequest', 'a JSON patch must be an array of operations');
  let doc = structuredClone(target) as Json;
  for (const raw of operations as JsonPatchOperation[]) {
    if (!isJsonObject(raw) || typeof raw.path !== 'string') {
      throw apiError(400, 'BadRequest', `malformed JSON patch operation ${JSON.stringify(raw)}`);
    }
    const value = structuredClone(raw.value) as Json;
    switch (raw.op) {
      case 'add':
        doc = add(doc, raw.path, value);
        break;
      case 'remove':
        doc = remove(doc, raw.path);
        break;
      case 'replace':
        getAt(doc, raw.path);
        doc = add(remove(doc, raw.path), raw.path, value);
        break;
      case 'move': {
        const moved = getAt(doc, raw.from ?? '');
        doc = add(remove(doc, raw.from ?? ''), raw.path, moved);
        break;
      }
      case 'copy':
        doc = add(doc, raw.path, structuredClone(getAt(doc, raw.from ?? '')));
        break;
      case 'test':
        if (!jsonEqual(getAt(doc, raw.path), value)) {
          throw unprocessable(
            `test operation failed: value at "${raw.path}" is not ${JSON.stringify(raw.value)}`,
          );
        }
        break;
      default:
        throw apiError(
          400,
          'BadRequest',
          `unknown JSON patch operation "${String((raw as { op: unknown }).op)}"`,
        );
    }
  }
  return doc;
}
