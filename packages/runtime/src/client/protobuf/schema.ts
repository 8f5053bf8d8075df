/**
 * The protobuf schema of the built-in kinds, compiled on first use from the generated table
 * (`generated/schema.ts`, written by `tools/protobuf-schema` from k8s.io/api's Go types).
 */
import { BUILTIN_SCHEMA } from './generated/schema.js';

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
  /** Position in {@link Message.fields}: JSON order, which is the Go struct's. */
  readonly slot: number;
  /** The message of a {@link Kind.Message} field (or of a map's message values). */
  message?: Message;
  /** ObjectMeta's managedFields, which a decoder may be told to skip. */
  readonly managedFields: boolean;
  /** With {@link TYPE_META}: the kind and apiVersion JSON shows first in each value. */
  readonly kindOf?: string;
  readonly apiVersionOf?: string;
}

/** One message: its fields in JSON order, and by protobuf number. */
export interface Message {
  readonly fields: Field[];
  readonly byNumber: (Field | undefined)[];
}

type RawField = [number, string, string, number, number?, string?];

interface Compiled {
  messages: Message[];
  kinds: Map<string, Message>;
}

let compiled: Compiled | undefined;

function compile(): Compiled {
  const table = JSON.parse(BUILTIN_SCHEMA) as { kinds: Record<string, number>; messages: RawField[][] };
  const messages: Message[] = table.messages.map((raw) => {
    const fields = raw.map(([number, name, kind, flags, , typeMeta], slot): Field => {
      const cut = typeMeta?.lastIndexOf('/') ?? -1;
      return {
        number,
        name,
        kind: KINDS[kind]!,
        flags,
        slot,
        managedFields: false,
        ...(typeMeta ? { apiVersionOf: typeMeta.slice(0, cut), kindOf: typeMeta.slice(cut + 1) } : {}),
      };
    });
    const byNumber: (Field | undefined)[] = [];
    for (const field of fields) byNumber[field.number] = field;
    return { fields, byNumber };
  });
  table.messages.forEach((raw, i) => {
    raw.forEach(([, , , , ref], slot) => {
      if (ref !== undefined && ref >= 0) messages[i]!.fields[slot]!.message = messages[ref];
    });
  });
  const kinds = new Map<string, Message>();
  for (const [key, index] of Object.entries(table.kinds)) kinds.set(key, messages[index]!);
  // Mark ObjectMeta's managedFields: the metadata message of any kind.
  const meta = kinds.get('v1/ConfigMap')?.byNumber[1]?.message;
  const managed = meta?.fields.find((f) => f.name === 'managedFields');
  if (managed) (managed as { managedFields: boolean }).managedFields = true;
  return { messages, kinds };
}

/** The message of kind `kind` in `apiVersion` (`v1`, `apps/v1`), if the runtime knows it. */
export function messageOf(apiVersion: string, kind: string): Message | undefined {
  // A stream names the same kind over and over: the last answer is kept.
  if (apiVersion === last.apiVersion && kind === last.kind) return last.message;
  compiled ??= compile();
  const message = compiled.kinds.get(`${apiVersion}/${kind}`);
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
  return messageOf(apiVersion, kind) !== undefined;
}
