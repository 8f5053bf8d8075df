/**
 * Writes the JavaScript of one message's decoder. Every choice a generic decoder would make per
 * field and per object (which wire type, which reader, what JSON shows for an unset field, what
 * omitempty leaves out) depends only on the schema, so it is made here once, as code: the decoder
 * keeps each field in a local and V8 sees one small function per message instead of one large
 * polymorphic loop (a captured list of 10,000 ConfigMaps decoded ~12% faster in fresh processes).
 */
import {
  type Field,
  INLINE,
  Kind,
  MAP,
  type Message,
  OMIT_EMPTY,
  OMIT_ZERO,
  POINTER,
  REPEATED,
  TYPE_META,
} from './schema.js';
import { FIXED32, FIXED64, LENGTH_DELIMITED, VARINT } from './wire.js';

/**
 * Masks of shown fields are two words of 30 bits (bitwise operators work on 32), combined as
 * `high * 2^30 + low`: a double holds that exactly for up to 53 fields (PodSpec, the largest, has 42).
 */
const MASK_BITS = 30;
const MAX_MASKED_FIELDS = 53;

/** The wire type a value of `kind` is sent with, outside a packed list. */
export function expectedWire(kind: Kind): number {
  switch (kind) {
    case Kind.Int:
    case Kind.Bool:
      return VARINT;
    case Kind.Double:
      return FIXED64;
    case Kind.Float:
      return FIXED32;
    default:
      return LENGTH_DELIMITED;
  }
}

/** Kinds that encoding/json's omitempty can leave out: strings, bytes, numbers, booleans, slices. */
function omittable(kind: Kind): boolean {
  return (
    kind === Kind.String ||
    kind === Kind.Bytes ||
    kind === Kind.Bool ||
    kind === Kind.Int ||
    kind === Kind.Double ||
    kind === Kind.Float ||
    kind === Kind.Strings
  );
}

function isScalarNumber(kind: Kind): boolean {
  return kind === Kind.Int || kind === Kind.Bool || kind === Kind.Double || kind === Kind.Float;
}

/** Whether a message's objects are made from a mask of present fields (else from key lists). */
export function usesMask(message: Message): boolean {
  return (
    message.fields.length <= MAX_MASKED_FIELDS &&
    message.fields.every((f) => !(f.flags & INLINE) && f.name !== '__proto__')
  );
}

/**
 * The source of a function body, taking `h` (the helpers of decode.ts) and `M` (the message),
 * that returns `function decode(r, end, options, typeMeta)` for `message`.
 */
export function decoderSource(message: Message): string {
  const fields = message.fields;
  const lines = ['"use strict";', 'const makers = new Map(), typedMakers = new Map();'];
  const locals = fields.map((f, i) => (f.flags & MAP ? `k${i}, x${i}` : `v${i}`));
  const refs = fields.flatMap((f, i) => (f.message ? [`d${i}`] : []));
  if (refs.length > 0) lines.push(`let ${refs.join(', ')};`);
  fields.forEach((f, i) => {
    if (f.flags & TYPE_META)
      lines.push(`const t${i} = { kind: M.fields[${i}].kindOf, apiVersion: M.fields[${i}].apiVersionOf };`);
  });
  lines.push('return function decode(r, end, options, typeMeta) {');
  if (locals.length > 0) lines.push(`let ${locals.join(', ')};`);
  lines.push('const outerEnd = r.end;', 'r.end = end;', 'while (r.pos < end) {', 'const tag = r.varint();');
  lines.push('switch (tag) {');
  for (const [i, field] of fields.entries()) lines.push(...readCases(field, i));
  lines.push('default: h.other(r, tag, M, options);', '}', '}');
  lines.push('if (r.pos !== end) throw h.overrun();', 'r.end = outerEnd;');
  lines.push(...(usesMask(message) ? maskBuild(fields) : listBuild(fields)));
  lines.push('};');
  return lines.join('\n');
}

/** The decoder of field `i`'s message, compiled on first use (a message may reach itself). */
function decoderOf(i: number): string {
  return `(d${i} ??= h.decoderOf(M.fields[${i}].message))`;
}

/** An expression reading one value of `field`'s kind at `r.pos`, its wire type already checked. */
function readValue(field: Field, i: number): string {
  switch (field.kind) {
    case Kind.String:
      return 'r.string()';
    case Kind.Int:
      return 'r.varint()';
    case Kind.Bool:
      return '(r.varint() !== 0)';
    case Kind.Double:
      return 'r.double()';
    case Kind.Float:
      return 'r.float()';
    case Kind.Bytes:
      return 'h.bytes(r)';
    case Kind.Message:
      return `${decoderOf(i)}(r, r.delimited(), options, undefined)`;
    case Kind.Time:
      return 'h.time(r)';
    default:
      return `h.special(r, ${field.kind}, options)`;
  }
}

const tagOf = (number: number, wire: number) => number * 8 + wire;

/** The `case` clauses of field `i`: its tags with the wire types it may come in. */
function readCases(field: Field, i: number): string[] {
  const wire = expectedWire(field.kind);
  const flags = field.flags;
  const v = `v${i}`;
  const out: string[] = [];
  const skipManaged = field.managedFields
    ? 'if (options.withoutManagedFields === true) { r.skip(2); break; }'
    : '';
  if (flags & MAP) {
    // A map entry: key 1, value 2; entries arrive one by one, into parallel key and value lists.
    out.push(
      `case ${tagOf(field.number, LENGTH_DELIMITED)}: { ${skipManaged}`,
      'const entryEnd = r.delimited(); r.end = entryEnd;',
      'let key = "", value;',
      'while (r.pos < entryEnd) {',
      'const inner = r.varint();',
      `if (inner === ${tagOf(1, LENGTH_DELIMITED)}) key = r.string();`,
      `else if (inner === ${tagOf(2, wire)}) value = ${readValue(field, i)};`,
      `else if (inner >>> 3 === 1 || inner >>> 3 === 2) throw h.wrongWire(inner & 7, M.fields[${i}]);`,
      'else r.skip(inner & 7);',
      '}',
      'r.end = end;',
      `if (k${i} === undefined) { k${i} = []; x${i} = []; }`,
      `k${i}.push(key);`,
      `x${i}.push(value === undefined ? ${valueZero(field, i)} : value);`,
      'break; }',
    );
  } else if (flags & REPEATED) {
    if (isScalarNumber(field.kind))
      out.push(
        `case ${tagOf(field.number, LENGTH_DELIMITED)}: {`,
        'const packedEnd = r.delimited();',
        `if (${v} === undefined) ${v} = [];`,
        `while (r.pos < packedEnd) ${v}.push(${readValue(field, i)});`,
        'break; }',
      );
    const read =
      flags & TYPE_META ? `${decoderOf(i)}(r, r.delimited(), options, t${i})` : readValue(field, i);
    out.push(
      `case ${tagOf(field.number, wire)}: ${skipManaged}`,
      `if (${v} === undefined) ${v} = [];`,
      `${v}.push(${read});`,
      'break;',
    );
  } else out.push(`case ${tagOf(field.number, wire)}: ${skipManaged} ${v} = ${readValue(field, i)}; break;`);
  return out;
}

/** An expression for the zero of one value of `field`'s kind, as JSON shows it. */
function valueZero(field: Field, i: number): string {
  switch (field.kind) {
    case Kind.String:
    case Kind.Bytes:
      return '""';
    case Kind.Message:
      return `h.empty(${decoderOf(i)}, options)`;
    case Kind.Quantity:
      return '"0"';
    case Kind.Strings:
    case Kind.Time:
    case Kind.MicroTime:
    case Kind.Raw:
      return 'null';
    case Kind.Duration:
      return '"0s"';
    case Kind.Bool:
      return 'false';
    default:
      return '0';
  }
}

/**
 * What JSON shows for `field` when protobuf did not send it: an expression, or `undefined` when
 * JSON leaves the field out too (omitempty, omitzero, nil pointers with omitempty).
 */
function unsetValue(field: Field, i: number): string | undefined {
  const flags = field.flags;
  const omitEmpty = (flags & OMIT_EMPTY) !== 0;
  if (flags & POINTER) return flags & (OMIT_EMPTY | OMIT_ZERO) ? undefined : 'null';
  if (flags & OMIT_ZERO) return undefined;
  if (flags & (REPEATED | MAP)) return omitEmpty ? undefined : 'null';
  if (omitEmpty && omittable(field.kind)) return undefined;
  // A nil []byte is null; other kinds show their zero (an empty struct, "", 0, false).
  if (field.kind === Kind.Bytes) return 'null';
  return valueZero(field, i);
}

/** A condition under which a sent value of `field` is left out, or `undefined` for never. */
function omitWhen(field: Field, v: string): string | undefined {
  const flags = field.flags;
  const conditions: string[] = [];
  if (flags & OMIT_ZERO) conditions.push(`${v} === null`);
  if ((flags & (OMIT_EMPTY | POINTER)) === OMIT_EMPTY) {
    if (flags & (MAP | REPEATED)) conditions.push(`${v}.length === 0`);
    else if (field.kind === Kind.String || field.kind === Kind.Bytes) conditions.push(`${v} === ""`);
    else if (field.kind === Kind.Bool) conditions.push(`${v} === false`);
    else if (field.kind === Kind.Strings) conditions.push(`${v}.length === 0`);
    else if (omittable(field.kind)) conditions.push(`${v} === 0`);
  }
  return conditions.length > 0 ? conditions.join(' || ') : undefined;
}

/**
 * Statements that settle field `i` for the object: `shown` runs with its value in `v{i}` when
 * JSON shows it. A map's lists become its object only once it is shown.
 */
function settle(field: Field, i: number, shown: (v: string) => string): string[] {
  const isMap = (field.flags & MAP) !== 0;
  const sent = isMap ? `k${i} !== undefined` : `v${i} !== undefined`;
  const v = isMap ? `k${i}` : `v${i}`;
  const unset = unsetValue(field, i);
  const omit = omitWhen(field, v);
  const show = [...(isMap ? [`v${i} = h.makeObject(k${i}, x${i});`] : []), shown(`v${i}`)].join(' ');
  const out = [`if (${sent}) {`, omit === undefined ? show : `if (!(${omit})) { ${show} }`, '}'];
  if (unset !== undefined) out.push(`else { v${i} = ${unset}; ${shown(`v${i}`)} }`);
  return out;
}

/** Builds the object from masks of shown fields, through a maker compiled per mask. */
function maskBuild(fields: Field[]): string[] {
  const out = ['let m0 = 0, m1 = 0;'];
  const all: string[] = [];
  fields.forEach((field, i) => {
    const bit = `m${i < MASK_BITS ? 0 : 1} |= ${2 ** (i % MASK_BITS)};`;
    if (field.flags & MAP) out.push(`let v${i};`);
    out.push(...settle(field, i, () => bit));
    all.push(`v${i}`);
  });
  out.push(
    `const mask = m1 * ${2 ** MASK_BITS} + m0;`,
    'const shapes = typeMeta === undefined ? makers : typedMakers;',
    'const make = shapes.get(mask) ?? h.maker(M, shapes, mask, typeMeta !== undefined);',
    `return make(typeMeta${all.map((v) => `, ${v}`).join('')});`,
  );
  return out;
}

/** Builds the object from lists of keys and values (messages with inline fields). */
function listBuild(fields: Field[]): string[] {
  const out = [
    'const keys = typeMeta === undefined ? [] : ["kind", "apiVersion"];',
    'const shown = typeMeta === undefined ? [] : [typeMeta.kind, typeMeta.apiVersion];',
  ];
  fields.forEach((field, i) => {
    if (field.flags & MAP) out.push(`let v${i};`);
    const add =
      field.flags & INLINE
        ? (v: string) => `h.spread(keys, shown, ${v});`
        : (v: string) => `keys.push(${JSON.stringify(field.name)}); shown.push(${v});`;
    out.push(...settle(field, i, add));
  });
  out.push('return h.makeObject(keys, shown);');
  return out;
}

/**
 * The source of a maker for `mask`: `(typeMeta, v0, …)` returning an object literal of the shown
 * fields, so that its objects get exact in-object slots as JSON.parse's do.
 */
export function makerSource(message: Message, mask: number, typed: boolean): string {
  const params = message.fields.map((_, i) => `v${i}`);
  const props = typed ? ['kind: t.kind', 'apiVersion: t.apiVersion'] : [];
  for (const i of shownFields(message, mask)) props.push(`${JSON.stringify(message.fields[i]!.name)}: v${i}`);
  return `return function make(t${params.map((p) => `, ${p}`).join('')}) { return { ${props.join(', ')} }; };`;
}

/** The positions of the fields `mask` marks as shown, in order. */
export function shownFields(message: Message, mask: number): number[] {
  const low = mask % 2 ** MASK_BITS;
  const high = Math.floor(mask / 2 ** MASK_BITS);
  return message.fields.flatMap((_, i) => {
    const word = i < MASK_BITS ? low : high;
    return Math.floor(word / 2 ** (i % MASK_BITS)) % 2 === 1 ? [i] : [];
  });
}
