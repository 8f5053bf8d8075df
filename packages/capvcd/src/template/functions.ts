/**
 * The functions a `vmNamingTemplate` may call: Go's text/template built-ins and the sprig
 * functions that make sense in a name, each as sprig defines it (argument order included: the
 * piped value comes last). Functions whose result changes from one call to the next (random
 * strings, dates, UUIDs) are refused: a VM's name must be the same on every reconcile.
 */
import { createHash } from 'node:crypto';

/** A template value: what fields and functions give. */
export type Value = string | number | boolean | null | undefined | Record<string, unknown> | unknown[];

/** A function failed on its arguments; the message names it. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

const str = (fn: string, v: Value): string => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '';
  throw new TemplateError(`${fn}: wants a string, got ${Array.isArray(v) ? 'a list' : 'an object'}`);
};
const int = (fn: string, v: Value): number => {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  throw new TemplateError(`${fn}: wants an integer, got ${JSON.stringify(v)}`);
};
const arity = (fn: string, args: Value[], n: number) => {
  if (args.length !== n) throw new TemplateError(`${fn}: wants ${n} arguments, got ${args.length}`);
};
/** Go's notion of empty, which `default` tests. */
const empty = (v: Value) =>
  v === undefined ||
  v === null ||
  v === '' ||
  v === 0 ||
  v === false ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

/** Go's `fmt.Sprintf` for the verbs a name needs: %s %v %d %x %q %%, with width and 0 padding. */
export function sprintf(format: string, args: Value[]): string {
  let next = 0;
  return format.replace(/%([-0]?)(\d*)([svdxq%])/g, (_, flag: string, width: string, verb: string) => {
    if (verb === '%') return '%';
    if (next >= args.length) return `%!${verb}(MISSING)`;
    const arg = args[next++];
    let out: string;
    if (verb === 'd') out = typeof arg === 'number' ? String(Math.trunc(arg)) : `%!d(${typeof arg}=${arg})`;
    else if (verb === 'x')
      out = typeof arg === 'number' ? arg.toString(16) : Buffer.from(str('printf', arg)).toString('hex');
    else if (verb === 'q') out = JSON.stringify(str('printf', arg));
    else out = str('printf', arg);
    const w = Number(width || 0);
    if (out.length >= w) return out;
    if (flag === '-') return out.padEnd(w);
    return out.padStart(w, flag === '0' && verb !== 's' ? '0' : ' ');
  });
}

function adler32(text: string): number {
  let a = 1;
  let b = 0;
  for (const byte of Buffer.from(text)) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return (b * 65536 + a) >>> 0;
}

/** Go's `fmt.Sprint`: a space between two operands when neither is a string. */
function sprint(args: Value[]): string {
  return args
    .map((a, i) => {
      const prev = args[i - 1];
      const space = i > 0 && typeof a !== 'string' && typeof prev !== 'string';
      return `${space ? ' ' : ''}${a === undefined || a === null ? '<nil>' : str('print', a)}`;
    })
    .join('');
}

type Fn = (args: Value[]) => Value;
const unary =
  (fn: string, f: (s: string) => Value): Fn =>
  (args) => {
    arity(fn, args, 1);
    return f(str(fn, args[0]));
  };
const binary =
  (fn: string, f: (a: string, s: string) => Value): Fn =>
  (args) => {
    arity(fn, args, 2);
    return f(str(fn, args[0]), str(fn, args[1]));
  };
const digest = (algorithm: string) => (s: string) => createHash(algorithm).update(s).digest('hex');

/** The supported functions, by name. */
export const FUNCTIONS: Record<string, Fn> = {
  // Go's built-ins.
  print: sprint,
  printf: (args) => sprintf(str('printf', args[0]), args.slice(1)),
  len: (args) => {
    arity('len', args, 1);
    const v = args[0];
    if (typeof v === 'string' || Array.isArray(v)) return v.length;
    if (typeof v === 'object' && v !== null) return Object.keys(v).length;
    throw new TemplateError(`len: wants a string, list or map, got ${JSON.stringify(v)}`);
  },
  index: (args) => {
    let v = args[0];
    for (const key of args.slice(1)) {
      if (Array.isArray(v)) v = v[int('index', key)] as Value;
      else if (typeof v === 'object' && v !== null) v = v[str('index', key)] as Value;
      else throw new TemplateError(`index: cannot index ${JSON.stringify(v)}`);
    }
    return v;
  },
  // sprig: strings.
  trunc: (args) => {
    arity('trunc', args, 2);
    const [n, s] = [int('trunc', args[0]), str('trunc', args[1])];
    if (n < 0 && s.length + n > 0) return s.slice(s.length + n);
    return n >= 0 && s.length > n ? s.slice(0, n) : s;
  },
  substr: (args) => {
    arity('substr', args, 3);
    const [start, end, s] = [int('substr', args[0]), int('substr', args[1]), str('substr', args[2])];
    if (start < 0) return s.slice(0, end);
    if (end < 0 || end > s.length) return s.slice(start);
    return s.slice(start, end);
  },
  lower: unary('lower', (s) => s.toLowerCase()),
  upper: unary('upper', (s) => s.toUpperCase()),
  title: unary('title', (s) =>
    s.replace(/(^|[^\p{L}\p{N}])(\p{L})/gu, (_, sep, c: string) => sep + c.toUpperCase()),
  ),
  trim: unary('trim', (s) => s.trim()),
  nospace: unary('nospace', (s) => s.replace(/\s+/g, '')),
  trimAll: binary('trimAll', (cutset, s) => {
    const cut = new Set(cutset);
    let [i, j] = [0, s.length];
    while (i < j && cut.has(s[i] as string)) i++;
    while (j > i && cut.has(s[j - 1] as string)) j--;
    return s.slice(i, j);
  }),
  trimPrefix: binary('trimPrefix', (prefix, s) =>
    prefix && s.startsWith(prefix) ? s.slice(prefix.length) : s,
  ),
  trimSuffix: binary('trimSuffix', (suffix, s) =>
    suffix && s.endsWith(suffix) ? s.slice(0, -suffix.length) : s,
  ),
  replace: (args) => {
    arity('replace', args, 3);
    const [from, to, s] = args.map((a) => str('replace', a)) as [string, string, string];
    return s.split(from).join(to);
  },
  cat: (args) =>
    args
      .filter((a) => a !== undefined && a !== null)
      .map((a) => str('cat', a))
      .join(' '),
  default: (args) => {
    if (args.length < 1 || args.length > 2)
      throw new TemplateError(`default: wants 1 or 2 arguments, got ${args.length}`);
    return args.length === 1 || empty(args[1]) ? args[0] : args[1];
  },
  // sprig: digests (a short, stable suffix from a long name).
  sha1sum: unary('sha1sum', digest('sha1')),
  sha256sum: unary('sha256sum', digest('sha256')),
  adler32sum: unary('adler32sum', (s) => String(adler32(s))),
};

/** Sprig functions refused because their result is not the same on every call. */
export const UNSTABLE = new Set([
  'randAlphaNum',
  'randAlpha',
  'randNumeric',
  'randAscii',
  'randInt',
  'uuidv4',
  'now',
  'date',
  'dateInZone',
  'unixEpoch',
  'shuffle',
]);
