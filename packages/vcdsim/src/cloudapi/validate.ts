/**
 * Checking CloudAPI JSON bodies as VCD does: malformed JSON, unknown fields, wrong types and
 * out-of-range numbers are 400, with the field's path in the message.
 */
import { errors } from '../server/errors.js';
import { type Ctx, requireContentType } from '../server/http.js';

/** The shape of a JSON value. */
export type Shape =
  | 'string'
  | 'boolean'
  | 'any'
  | { int: [number, number] }
  | { enum: string[] }
  | { list: Shape }
  | { object: Record<string, Shape>; required?: string[] }
  | { nullable: Shape };

function check(v: unknown, s: Shape, at: string): void {
  const bad = (what: string) => errors.badRequest(`${at}: ${what}`);
  if (s === 'any') return;
  if (typeof s === 'object' && 'nullable' in s) {
    if (v !== null) check(v, s.nullable, at);
    return;
  }
  if (v === null || v === undefined) throw bad('must not be null');
  if (s === 'string' || s === 'boolean') {
    if (typeof v !== s) throw bad(`expected a ${s}`);
    return;
  }
  if ('int' in s) {
    if (typeof v !== 'number' || !Number.isInteger(v)) throw bad('expected an integer');
    if (v < s.int[0] || v > s.int[1]) throw bad(`must be between ${s.int[0]} and ${s.int[1]}`);
    return;
  }
  if ('enum' in s) {
    if (typeof v !== 'string' || !s.enum.includes(v)) throw bad(`must be one of ${s.enum.join(', ')}`);
    return;
  }
  if ('list' in s) {
    if (!Array.isArray(v)) throw bad('expected a list');
    v.forEach((x, i) => {
      check(x, s.list, `${at}[${i}]`);
    });
    return;
  }
  if (typeof v !== 'object' || Array.isArray(v)) throw bad('expected an object');
  const o = v as Record<string, unknown>;
  for (const k of s.required ?? [])
    if (o[k] === undefined || o[k] === null) throw errors.badRequest(`${at}.${k}: is required`);
  for (const [k, x] of Object.entries(o)) {
    const sub = s.object[k];
    if (!sub) throw errors.badRequest(`Unrecognized field "${k}" at ${at}`);
    if (x !== undefined) check(x, sub, `${at}.${k}`);
  }
}

/** Reads and checks a JSON body (Content-Type must be application/json). */
export async function readJson<T>(ctx: Ctx, shape: Shape): Promise<T> {
  requireContentType(ctx, 'application/json');
  const text = (await ctx.body()).toString('utf8');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(`The body is not valid JSON: ${(e as Error).message}`);
  }
  check(v, shape, '$');
  return v as T;
}

/** `{name, id}` references; `id` is the one read. */
export const REF: Shape = { object: { name: { nullable: 'string' }, id: 'string' }, required: ['id'] };
export const OPT_REF: Shape = { nullable: REF };
