/**
 * Incremental decoder of a protobuf watch stream (`application/vnd.kubernetes.protobuf;stream=watch`):
 * frames of a 4-byte big-endian length and a `metav1.WatchEvent`, arriving in chunks that may split
 * a frame anywhere.
 */

import type { ApiStatus, KubeObject, WatchEvent } from '../types.js';
import { WatchDecodeError } from '../watch-decoder.js';
import type { DecodeOptions } from './decode.js';
import { decodeObject, readWatchFrame } from './envelope.js';

/** The length of the frame at `pos`, checked against {@link MAX_FRAME}. */
function frameLength(bytes: Buffer, pos = 0): number {
  const length = bytes.readUInt32BE(pos);
  if (length > MAX_FRAME) throw new WatchDecodeError(`protobuf watch: a frame of ${length} bytes`);
  return length;
}

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Guards against a corrupt length eating memory: the server caps requests and objects far lower. */
const MAX_FRAME = 256 * 1024 * 1024;

/** Same contract as the JSON {@link WatchDecoder}: push chunks, get the events they completed. */
export class ProtobufWatchDecoder<T extends KubeObject = KubeObject> {
  /** Bytes of a frame not complete yet. */
  private pending: Buffer | undefined;
  /** One object for every event's decode, not one per event. */
  private readonly decodeOptions: DecodeOptions;

  constructor(options: { omitManagedFields?: boolean } = {}) {
    this.decodeOptions = { withoutManagedFields: options.omitManagedFields === true };
  }

  /**
   * Decodes one chunk; returns the events of every frame it completed, in order.
   * @throws WatchDecodeError for a frame that is not a watch event.
   */
  push(chunk: Uint8Array | string): WatchEvent<T>[] {
    if (typeof chunk === 'string')
      throw new WatchDecodeError('protobuf watch: text where bytes were expected');
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const events: WatchEvent<T>[] = [];
    let pos = 0;
    if (this.pending !== undefined) {
      // Join the unfinished frame with only as much of the chunk as it lacks, not the whole chunk:
      // chunks are ~64 KB and frames ~1 KB, so joining whole chunks would copy the stream again.
      const joined =
        this.pending.length >= 4 ? this.pending : Buffer.concat([this.pending, bytes.subarray(0, 4)]);
      if (joined.length < 4) {
        this.pending = joined;
        return events;
      }
      const length = frameLength(joined);
      const lacking = 4 + length - this.pending.length;
      if (lacking > bytes.length) {
        this.pending = Buffer.concat([this.pending, bytes]);
        return events;
      }
      const frame = Buffer.concat([this.pending, bytes.subarray(0, lacking)]);
      this.pending = undefined;
      events.push(this.event(frame, 4, frame.length));
      pos = lacking;
    }
    while (bytes.length - pos >= 4) {
      const length = frameLength(bytes, pos);
      if (bytes.length - pos - 4 < length) break;
      events.push(this.event(bytes, pos + 4, pos + 4 + length));
      pos += 4 + length;
    }
    // Copied: the transport may reuse the chunk's memory once this returns.
    if (pos < bytes.length) this.pending = Buffer.from(bytes.subarray(pos));
    return events;
  }

  /**
   * Ends the stream.
   * @throws WatchDecodeError when a frame was cut short.
   */
  end(): WatchEvent<T>[] {
    if (this.pending !== undefined && this.pending.length > 0) {
      this.pending = undefined;
      throw new WatchDecodeError('protobuf watch: stream ended inside a frame');
    }
    return [];
  }

  private event(bytes: Buffer, start: number, end: number): WatchEvent<T> {
    try {
      const frame = readWatchFrame(bytes, start, end);
      if (!EVENT_TYPES.has(frame.type))
        throw new WatchDecodeError(`protobuf watch: event type "${frame.type}"`);
      const object = decodeObject(bytes, frame.objectStart, frame.objectEnd, this.decodeOptions);
      if (frame.type === 'ERROR') return { type: 'ERROR', status: object as ApiStatus };
      return { type: frame.type as 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', object: object as T };
    } catch (err) {
      if (err instanceof WatchDecodeError) throw err;
      throw new WatchDecodeError(`protobuf watch: malformed event: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
}
