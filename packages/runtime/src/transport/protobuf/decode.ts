/**
 * Turns a protobuf message of a built-in kind into the object the API server's JSON would give:
 * the same field names, in the same order, with the same omissions (encoding/json's omitempty and
 * omitzero, nil pointers) and the same renderings of times, quantities and embedded JSON.
 */

import { decoderSource, makerSource, shownFields } from './decoder-source.js';
import { claimShape, makeObject } from './object-shape.js';
import { type Field, Kind, type Message } from './schema.js';
import { formatDuration, formatMicroTime, formatTime } from './time-format.js';
import {
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

type Json = Record<string, unknown>;

/** A message's compiled decoder: its fields from `r.pos` to `end`, as a new object. */
export type MessageDecoder = (
  r: ProtoReader,
  end: number,
  options: DecodeOptions,
  typeMeta: TypeMeta | undefined,
) => Json;

/** The kind and apiVersion an object's JSON shows first. */
export interface TypeMeta {
  readonly kind: string;
  readonly apiVersion: string;
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
  typeMeta?: TypeMeta,
): Json {
  return decoderOf(message)(r, end, options, typeMeta);
}

const decoders = new WeakMap<Message, MessageDecoder>();

/** The decoder of `message`, compiled the first time a decode reaches it. */
function decoderOf(message: Message): MessageDecoder {
  let decoder = decoders.get(message);
  if (decoder === undefined) {
    const make = new Function('h', 'M', decoderSource(message)) as (
      helpers: typeof HELPERS,
      message: Message,
    ) => MessageDecoder;
    decoder = make(HELPERS, message);
    decoders.set(message, decoder);
  }
  return decoder;
}

/** @internal Makes one object of a message from every field's shown value (see makerSource). */
export type Make = (typeMeta: TypeMeta | undefined, ...values: unknown[]) => Json;

/** Tags of a Timestamp's fields: seconds (1) and nanos (2), both varints. */
const SECONDS_TAG = (1 << 3) | VARINT;
const NANOS_TAG = (2 << 3) | VARINT;

/** An empty reader: decoding it gives a message's zero object (a map entry without a value). */
const EMPTY = new ProtoReader(Buffer.alloc(0));

/**
 * @internal A maker past the shape budget: the shown fields' keys and values, through makeObject.
 */
export function byKeys(message: Message, shown: number[]): Make {
  const names = shown.map((i) => message.fields[i]!.name);
  return (typeMeta, ...values) => {
    const keys = typeMeta === undefined ? [...names] : ['kind', 'apiVersion', ...names];
    const picked = shown.map((i) => values[i]);
    return makeObject(
      keys,
      typeMeta === undefined ? picked : [typeMeta.kind, typeMeta.apiVersion, ...picked],
    );
  };
}

/** What the generated decoders call (see decoder-source.ts). */
const HELPERS = {
  decoderOf,
  makeObject,
  special: readSpecial,
  /** metav1.Time, the special kind nearly every object has (creationTimestamp): seconds only. */
  time(r: ProtoReader): string | null {
    const end = r.delimited();
    let seconds: number | undefined;
    let nanos: number | undefined;
    const outerEnd = r.end;
    r.end = end;
    while (r.pos < end) {
      const tag = r.varint();
      if (tag === SECONDS_TAG) seconds = r.varint();
      else if (tag === NANOS_TAG) nanos = r.varint();
      else r.skip(tag & 7);
    }
    r.end = outerEnd;
    return seconds === undefined && nanos === undefined ? null : formatTime(seconds ?? 0);
  },
  bytes(r: ProtoReader): string {
    const end = r.delimited();
    const text = r.bytes.toString('base64', r.pos, end);
    r.pos = end;
    return text;
  },
  empty(decoder: MessageDecoder, options: DecodeOptions): Json {
    return decoder(EMPTY, 0, options, undefined);
  },
  /** A field whose tag no case took: unknown, skipped managedFields, or a wrong wire type. */
  other(r: ProtoReader, tag: number, message: Message, options: DecodeOptions): void {
    const field = message.byNumber[tag >>> 3];
    // A field the schema lacks cannot be named in JSON: refused rather than dropped, so that the
    // transport reads the kind as JSON instead (an update of a lossy read would erase the field).
    if (field === undefined)
      throw new ProtobufDecodeError(`protobuf: field ${tag >>> 3} is not in the schema (a newer server?)`);
    if (field.managedFields && options.withoutManagedFields === true) r.skip(tag & 7);
    else throw HELPERS.wrongWire(tag & 7, field);
  },
  wrongWire(wire: number, field: Field): ProtobufDecodeError {
    return new ProtobufDecodeError(`protobuf: wire type ${wire} for a field of kind ${field.kind}`);
  },
  overrun(): ProtobufDecodeError {
    return new ProtobufDecodeError('protobuf: field runs past its message');
  },
  /** Copies an inline field's keys and values into the object's lists. */
  spread(keys: string[], shown: unknown[], value: Json): void {
    for (const key of Object.keys(value)) {
      keys.push(key);
      shown.push(value[key]);
    }
  },
  /**
   * The maker of `message`'s objects with the fields of `mask`, compiled and kept in `shapes`;
   * past the shape budget, one that is neither (so odd masks cannot grow memory without bound).
   */
  maker(message: Message, shapes: Map<number, Make>, mask: number, typed: boolean): Make {
    if (!claimShape()) return byKeys(message, shownFields(message, mask));
    const make = new Function(makerSource(message, mask, typed))() as Make;
    shapes.set(mask, make);
    return make;
  },
};

/**
 * The kinds whose message is a Go type with its own JSON (Time has its own reader, HELPERS.time):
 * read their fields, render as JSON does.
 */
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
