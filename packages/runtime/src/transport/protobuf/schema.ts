/**
 * The protobuf schema of the built-in kinds, compiled message by message as decodes need them
 * from the generated table (`generated/schema.ts`, written by `tools/protobuf-schema` from
 * k8s.io/api's Go types).
 */
import { BUILTIN_KINDS, BUILTIN_MESSAGES } from './generated/schema.js';

/** How a field's value is encoded and shown. */
export const Kind = {
  String: 0,
  Bytes: 1,
  Bool: 2,
  Int: 3,
  Double: 4,
  Float: 5,
  Message: 6,
  /** metav1.Time: RFC 3339 seconds, zero shown as null. */
  Time: 7,
  /** metav1.MicroTime: RFC 3339 with microseconds. */
  MicroTime: 8,
  /** metav1.Duration: Go's duration text. */
  Duration: 9,
  /** resource.Quantity: its canonical string. */
  Quantity: 10,
  /** intstr.IntOrString: a number or a string. */
  IntOrString: 11,
  /** runtime.RawExtension, metav1.FieldsV1: embedded JSON. */
  Raw: 12,
  /** A named string slice protobuf wraps in a message (ExtraValue). */
  Strings: 13,
} as const;
/** One of {@link Kind}. */
export type Kind = (typeof Kind)[keyof typeof Kind];

const KINDS: Record<string, Kind> = {
  string: Kind.String,
  bytes: Kind.Bytes,
  bool: Kind.Bool,
  int: Kind.Int,
  double: Kind.Double,
  float: Kind.Float,
  message: Kind.Message,
  time: Kind.Time,
  microtime: Kind.MicroTime,
  duration: Kind.Duration,
  quantity: Kind.Quantity,
  intorstring: Kind.IntOrString,
  raw: Kind.Raw,
  strings: Kind.Strings,
};

/** Field flags, as the generator writes them. */
export const REPEATED = 1;
export const MAP = 2;
export const OMIT_EMPTY = 4;
export const POINTER = 8;
export const INLINE = 16;
export const OMIT_ZERO = 32;
/** An object inside another whose apiVersion and kind the server fills in (StatefulSet's claim templates). */
export const TYPE_META = 64;

/** One field of a message. */
export interface Field {
  readonly number: number;
  /** The JSON name; for an inline field, unused. */
  readonly name: string;
  readonly kind: Kind;
  readonly flags: number;
  /** The message of a {@link Kind.Message} field (or of a map's message values). */
  message?: Message;
  /** ObjectMeta's managedFields, which a decoder may be told to skip. */
  readonly managedFields: boolean;
  /** With {@link TYPE_META}: the kind and apiVersion JSON shows first in each value. */
  readonly kindOf?: string;
  readonly apiVersionOf?: string;
}

/** One message: its fields in JSON order (the Go struct's), and by protobuf number. */
export interface Message {
  readonly fields: Field[];
  readonly byNumber: (Field | undefined)[];
}

type RawField = [number, string, string, number, number?, string?];

/** ObjectMeta.managedFields, as the generator marks it. */
const MANAGED_FIELDS = 128;

// Messages are compiled the first time a decode reaches them, with what they reference: a
// process reading ConfigMaps holds a handful, not the thousand-odd of every built-in group.
const compiled: (Message | undefined)[] = [];
let kinds: Map<string, number> | undefined;

function kindIndex(): Map<string, number> {
  kinds ??= new Map(Object.entries(JSON.parse(BUILTIN_KINDS) as Record<string, number>));
  return kinds;
}

function messageAt(index: number): Message {
  const known = compiled[index];
  if (known !== undefined) return known;
  const raw = JSON.parse(BUILTIN_MESSAGES[index]!) as RawField[];
  const message: Message = { fields: [], byNumber: [] };
  // Registered before its references are resolved, so a message reachable from itself terminates.
  compiled[index] = message;
  for (const [number, name, kind, flags, ref, typeMeta] of raw) {
    const cut = typeMeta?.lastIndexOf('/') ?? -1;
    const field: Field = {
      number,
      name,
      kind: KINDS[kind]!,
      flags,
      managedFields: (flags & MANAGED_FIELDS) !== 0,
      ...(typeMeta ? { apiVersionOf: typeMeta.slice(0, cut), kindOf: typeMeta.slice(cut + 1) } : {}),
    };
    if (ref !== undefined && ref >= 0) field.message = messageAt(ref);
    message.fields.push(field);
    message.byNumber[number] = field;
  }
  return message;
}

/** The message of kind `kind` in `apiVersion` (`v1`, `apps/v1`), if the runtime knows it. */
export function messageOf(apiVersion: string, kind: string): Message | undefined {
  // A stream names the same kind over and over: the last answer is kept.
  if (apiVersion === last.apiVersion && kind === last.kind) return last.message;
  const index = kindIndex().get(`${apiVersion}/${kind}`);
  const message = index === undefined ? undefined : messageAt(index);
  last = { apiVersion, kind, message };
  return message;
}

let last: { apiVersion: string; kind: string; message: Message | undefined } = {
  apiVersion: '',
  kind: '',
  message: undefined,
};

/** Whether objects of `kind` in `apiVersion` can be read as protobuf. */
export function hasProtobuf(apiVersion: string, kind: string): boolean {
  return kindIndex().has(`${apiVersion}/${kind}`);
}
