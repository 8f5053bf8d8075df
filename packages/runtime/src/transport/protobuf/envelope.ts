/**
 * Kubernetes' protobuf envelope: the `k8s\0` magic, then a `runtime.Unknown` that names the
 * object's apiVersion and kind and carries its message; and the frames of a protobuf watch.
 */
import { type DecodeOptions, decodeMessage, setEmbeddedDecoder } from './decode.js';
import { messageOf } from './schema.js';
import { hasKubernetesMagic, LENGTH_DELIMITED, ProtobufDecodeError, ProtoReader } from './wire.js';

/** The media type of Kubernetes' protobuf encoding. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** Whether a Content-Type header names the protobuf encoding (plain or streamed). */
export function isProtobuf(contentType: string | undefined): boolean {
  return contentType?.startsWith(PROTOBUF_MEDIA_TYPE) === true;
}

/**
 * Decodes an encoded object (`k8s\0` + Unknown) from `bytes[start, end)` into its JSON shape,
 * with `kind` and `apiVersion` first as the server's JSON has them.
 * @throws ProtobufDecodeError for other bytes, or a kind the runtime has no schema for.
 */
export function decodeObject(
  bytes: Buffer,
  start = 0,
  end = bytes.length,
  options: DecodeOptions = {},
): Record<string, unknown> {
  if (!hasKubernetesMagic(bytes, start, end)) {
    throw new ProtobufDecodeError('protobuf: not a Kubernetes object (no k8s magic)');
  }
  const r = new ProtoReader(bytes, start + 4, end);
  let apiVersion = '';
  let kind = '';
  let rawStart = -1;
  let rawEnd = -1;
  let encoding = '';
  while (r.pos < end) {
    const tag = r.varint();
    const number = tag >>> 3;
    const wire = tag & 7;
    if (wire !== LENGTH_DELIMITED) r.skip(wire);
    else if (number === 1) {
      const metaEnd = r.delimited();
      r.end = metaEnd;
      while (r.pos < metaEnd) {
        const inner = r.varint();
        if (inner >>> 3 === 1 && (inner & 7) === LENGTH_DELIMITED) apiVersion = r.string();
        else if (inner >>> 3 === 2 && (inner & 7) === LENGTH_DELIMITED) kind = r.string();
        else r.skip(inner & 7);
      }
      r.end = end;
    } else if (number === 2) {
      rawEnd = r.delimited();
      rawStart = r.pos;
      r.pos = rawEnd;
    } else if (number === 3) encoding = r.string();
    else r.skip(wire);
  }
  if (encoding !== '') throw new ProtobufDecodeError(`protobuf: unsupported content encoding ${encoding}`);
  const message = messageOf(apiVersion, kind);
  if (message === undefined) throw new ProtobufDecodeError(`protobuf: no schema for ${apiVersion} ${kind}`);
  // No raw field: the message of a zero object, every field unset.
  if (rawStart < 0) rawStart = rawEnd = end;
  return decodeMessage(new ProtoReader(bytes, rawStart, rawEnd), rawEnd, message, options, {
    kind,
    apiVersion,
  });
}

setEmbeddedDecoder(decodeObject);

/** One event of a protobuf watch: its type, and where its encoded object lies. */
export interface WatchFrame {
  type: string;
  objectStart: number;
  objectEnd: number;
}

/**
 * Reads a `metav1.WatchEvent` (type 1, object 2 as a RawExtension whose raw 1 is an encoded
 * object) from `bytes[start, end)`.
 */
export function readWatchFrame(bytes: Buffer, start: number, end: number): WatchFrame {
  const r = new ProtoReader(bytes, start, end);
  let type = '';
  let objectStart = -1;
  let objectEnd = -1;
  while (r.pos < end) {
    const tag = r.varint();
    const number = tag >>> 3;
    const wire = tag & 7;
    if (number === 1 && wire === LENGTH_DELIMITED) type = r.string();
    else if (number === 2 && wire === LENGTH_DELIMITED) {
      const extensionEnd = r.delimited();
      r.end = extensionEnd;
      while (r.pos < extensionEnd) {
        const inner = r.varint();
        if (inner >>> 3 === 1 && (inner & 7) === LENGTH_DELIMITED) {
          objectEnd = r.delimited();
          objectStart = r.pos;
          r.pos = objectEnd;
        } else r.skip(inner & 7);
      }
      r.end = end;
    } else r.skip(wire);
  }
  if (objectStart < 0)
    throw new ProtobufDecodeError(`protobuf watch: ${type || 'an'} event without an object`);
  return { type, objectStart, objectEnd };
}
