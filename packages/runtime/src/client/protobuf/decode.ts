/**
 * Turns a protobuf message of a built-in kind into the object the API server's JSON would give:
 * the same field names, in the same order, with the same omissions (encoding/json's omitempty and
 * omitzero, nil pointers) and the same renderings of times, quantities and embedded JSON.
 */

import { makeObject } from './object-shape.js';
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
import { formatDuration, formatMicroTime, formatTime } from './time-format.js';
import {
  FIXED32,
  FIXED64,
  hasKubernetesMagic,
  LENGTH_DELIMITED,
  ProtobufDecodeError,
  ProtoReader,
  utf8,
  VARINT,
} from './wire.js';

/** Options of a decode. */
export interface DecodeOptions {
  /** Skip `metadata.managedFields` instead of decoding it. */
  readonly withoutManagedFields?: boolean;
}

/** Decodes embedded bytes that are themselves an encoded object (`k8s\0…`); set by envelope.ts. */
let decodeEmbedded:
  | ((bytes: Buffer, start: number, end: number, options: DecodeOptions) => unknown)
  | undefined;

/** @internal Lets envelope.ts decode a RawExtension that holds protobuf rather than JSON. */
export function setEmbeddedDecoder(decoder: typeof decodeEmbedded): void {
  decodeEmbedded = decoder;
}

type Values = unknown[];
type Json = Record<string, unknown>;

/** A map field's entries as they arrive, made into an object when its message is built. */
class Entries {
  readonly keys: string[] = [];
  readonly values: unknown[] = [];
}

/**
 * Decodes the fields of `message` from `r.pos` to `end` into a new object; with `typeMeta`, its
 * first keys are `kind` and `apiVersion` with those values.
 * @throws ProtobufDecodeError for bytes that are not that message.
 */
export function decodeMessage(
  r: ProtoReader,
  end: number,
  message: Message,
  options: DecodeOptions,
  typeMeta?: { kind: string; apiVersion: string },
): Json {
  const values: Values = new Array(message.fields.length);
  const outerEnd = r.end;
  r.end = end;
  while (r.pos < end) {
    const tag = r.varint();
    const wire = tag & 7;
    const field = message.byNumber[tag >>> 3];
    // A field the schema lacks cannot be named in JSON: refused rather than dropped, so that the
    // transport reads the kind as JSON instead (an update of a lossy read would erase the field).
    if (field === undefined)
      throw new ProtobufDecodeError(`protobuf: field ${tag >>> 3} is not in the schema (a newer server?)`);
    if (field.managedFields && options.withoutManagedFields === true) {
      r.skip(wire);
      continue;
    }
    const flags = field.flags;
    if (flags & MAP) {
      if (values[field.slot] === undefined) values[field.slot] = new Entries();
      readEntry(r, field, options, values[field.slot] as Entries);
    } else if (flags & REPEATED) {
      if (values[field.slot] === undefined) values[field.slot] = [];
      const list = values[field.slot] as unknown[];
      if (wire === LENGTH_DELIMITED && isScalarNumber(field.kind)) {
        const packedEnd = r.delimited();
        while (r.pos < packedEnd)
          list.push(readValue(r, field.kind, field.message, expectedWire(field.kind), options));
      } else if (flags & TYPE_META && wire === LENGTH_DELIMITED) {
        const into = { kind: field.kindOf!, apiVersion: field.apiVersionOf! };
        list.push(decodeMessage(r, r.delimited(), field.message!, options, into));
      } else list.push(readValue(r, field.kind, field.message, wire, options));
    } else values[field.slot] = readValue(r, field.kind, field.message, wire, options);
  }
  if (r.pos !== end) throw new ProtobufDecodeError('protobuf: field runs past its message');
  r.end = outerEnd;
  return build(message, values, options, typeMeta);
}

/** Makes the object of the decoded values, in JSON order, leaving out what encoding/json would. */
function build(
  message: Message,
  values: Values,
  options: DecodeOptions,
  typeMeta?: { kind: string; apiVersion: string },
): Json {
  const fields = message.fields;
  const keys: string[] = typeMeta ? ['kind', 'apiVersion'] : [];
  const shown: unknown[] = typeMeta ? [typeMeta.kind, typeMeta.apiVersion] : [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    let value = values[i];
    const flags = field.flags;
    if (value === undefined) {
      // A nil pointer: left out with omitempty, null without (`sideEffects: null`).
      if (flags & POINTER) {
        if (flags & (OMIT_EMPTY | OMIT_ZERO)) continue;
        value = null;
      } else if (flags & OMIT_ZERO) continue;
      else value = zero(field, options);
      if (value === undefined) continue;
    } else if (flags & OMIT_ZERO && value === null) continue;
    else if ((flags & (OMIT_EMPTY | POINTER)) === OMIT_EMPTY && isEmpty(value, field)) continue;
    if (value instanceof Entries) value = makeObject(value.keys, value.values);
    if (flags & INLINE) {
      for (const key of Object.keys(value as Json)) {
        keys.push(key);
        shown.push((value as Json)[key]);
      }
    } else {
      keys.push(field.name);
      shown.push(value);
    }
  }
  return makeObject(keys, shown);
}

/** What JSON shows for a field protobuf did not send: `undefined` when JSON leaves it out too. */
function zero(field: Field, options: DecodeOptions): unknown {
  const omit = (field.flags & OMIT_EMPTY) !== 0;
  if (field.flags & (REPEATED | MAP)) return omit ? undefined : null;
  if (omit && omittable(field.kind)) return undefined;
  // A nil []byte field is null; an absent map value is an empty one (see valueZero).
  if (field.kind === Kind.Bytes) return null;
  return valueZero(field, options);
}

/** The zero value of one value of `field`'s kind, as JSON shows it (a map entry without a value). */
function valueZero(field: Field, options: DecodeOptions): unknown {
  switch (field.kind) {
    case Kind.String:
    case Kind.Bytes:
      return '';
    case Kind.Message:
      return build(field.message!, [], options);
    case Kind.Quantity:
      return '0';
    case Kind.Strings:
    case Kind.Time:
    case Kind.MicroTime:
    case Kind.Raw:
      return null;
    case Kind.Duration:
      return '0s';
    case Kind.Bool:
      return false;
    default:
      return 0;
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

/** encoding/json's omitempty: empty strings, zero numbers, false, empty lists and maps (never structs). */
function isEmpty(value: unknown, field: Field): boolean {
  if (field.flags & MAP) return (value as Entries).keys.length === 0;
  if (field.flags & REPEATED) return (value as unknown[]).length === 0;
  if (!omittable(field.kind)) return false;
  return value === '' || value === 0 || value === false || (Array.isArray(value) && value.length === 0);
}

function isScalarNumber(kind: Kind): boolean {
  return kind === Kind.Int || kind === Kind.Bool || kind === Kind.Double || kind === Kind.Float;
}

function expectedWire(kind: Kind): number {
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

function readValue(
  r: ProtoReader,
  kind: Kind,
  message: Message | undefined,
  wire: number,
  options: DecodeOptions,
): unknown {
  if (wire !== expectedWire(kind))
    throw new ProtobufDecodeError(`protobuf: wire type ${wire} for a field of kind ${kind}`);
  switch (kind) {
    case Kind.String:
      return r.string();
    case Kind.Int:
      return r.varint();
    case Kind.Bool:
      return r.varint() !== 0;
    case Kind.Double:
      return r.double();
    case Kind.Float:
      return r.float();
    case Kind.Bytes: {
      const end = r.delimited();
      const text = r.bytes.toString('base64', r.pos, end);
      r.pos = end;
      return text;
    }
    case Kind.Message:
      return decodeMessage(r, r.delimited(), message!, options);
    default:
      return readSpecial(r, kind, options);
  }
}

/** The kinds whose message is a Go type with its own JSON: read their fields, render as JSON does. */
function readSpecial(r: ProtoReader, kind: Kind, options: DecodeOptions): unknown {
  const end = r.delimited();
  // Fields 1..3 of the small messages: seconds/nanos, duration, string, type/intVal/strVal, raw.
  let f1: number | string | undefined;
  let f2: number | string | undefined;
  let f3: string | undefined;
  let rawStart = -1;
  let rawEnd = -1;
  let strings: string[] | undefined;
  const outerEnd = r.end;
  r.end = end;
  while (r.pos < end) {
    const tag = r.varint();
    const number = tag >>> 3;
    const wire = tag & 7;
    if (wire === VARINT && number === 1) f1 = r.varint();
    else if (wire === VARINT && number === 2) f2 = r.varint();
    else if (wire === LENGTH_DELIMITED && number === 1 && (kind === Kind.Raw || kind === Kind.Strings)) {
      rawEnd = r.delimited();
      rawStart = r.pos;
      if (kind === Kind.Strings) {
        if (strings === undefined) strings = [];
        strings.push(utf8(r.bytes, rawStart, rawEnd));
      }
      r.pos = rawEnd;
    } else if (wire === LENGTH_DELIMITED && number === 1) f1 = r.string();
    else if (wire === LENGTH_DELIMITED && number === 3) f3 = r.string();
    else r.skip(wire);
  }
  r.end = outerEnd;
  switch (kind) {
    case Kind.Time:
      return f1 === undefined && f2 === undefined ? null : formatTime(Number(f1 ?? 0));
    case Kind.MicroTime:
      return f1 === undefined && f2 === undefined ? null : formatMicroTime(Number(f1 ?? 0), Number(f2 ?? 0));
    case Kind.Duration:
      return formatDuration(Number(f1 ?? 0));
    case Kind.Quantity:
      return typeof f1 === 'string' ? f1 : '0';
    case Kind.IntOrString:
      return f1 === 1 ? (f3 ?? '') : Number(f2 ?? 0);
    case Kind.Strings:
      return strings ?? [];
    case Kind.Raw:
      return rawStart < 0 ? null : embedded(r.bytes, rawStart, rawEnd, options);
  }
  throw new ProtobufDecodeError(`protobuf: unknown value kind ${kind}`);
}

/** Embedded JSON (or an embedded protobuf object) of a RawExtension or FieldsV1. */
function embedded(bytes: Buffer, start: number, end: number, options: DecodeOptions): unknown {
  if (hasKubernetesMagic(bytes, start, end)) {
    if (!decodeEmbedded) throw new ProtobufDecodeError('protobuf: embedded object without a decoder');
    return decodeEmbedded(bytes, start, end, options);
  }
  if (start === end) return null;
  try {
    return JSON.parse(bytes.toString('utf8', start, end));
  } catch (err) {
    throw new ProtobufDecodeError('protobuf: embedded JSON is malformed', { cause: err });
  }
}

/** Reads one map entry (key 1, value 2) into `entries`. */
function readEntry(r: ProtoReader, field: Field, options: DecodeOptions, entries: Entries): void {
  const end = r.delimited();
  const outerEnd = r.end;
  r.end = end;
  let key = '';
  let value: unknown;
  while (r.pos < end) {
    const tag = r.varint();
    const number = tag >>> 3;
    if (number === 1) key = r.string();
    else if (number === 2) value = readValue(r, field.kind, field.message, tag & 7, options);
    else r.skip(tag & 7);
  }
  r.end = outerEnd;
  entries.keys.push(key);
  entries.values.push(value ?? valueZero(field, options));
}
