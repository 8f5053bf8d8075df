/**
 * Incremental decoder of a protobuf watch stream (`application/vnd.kubernetes.protobuf;stream=watch`):
 * frames of a 4-byte big-endian length and a `metav1.WatchEvent`, arriving in chunks that may split
 * a frame anywhere.
 */

import type { ApiStatus, KubeObject, WatchEvent } from '../../api/types.js';
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

/**
 * The size of the buffer for frames that straddle chunks: made on first use, and kept unless a
 * bigger frame grew it.
 */
const ASSEMBLY_BYTES = 16 * 1024;
const NO_BYTES = Buffer.alloc(0);

/** Same contract as the JSON {@link WatchDecoder}: push chunks, get the events they completed. */
export class ProtobufWatchDecoder<T extends KubeObject = KubeObject> {
  /**
   * Where a frame that straddles chunks is put together, reused frame after frame: Go's server
   * sends a watch in chunks of at most 2 kB, so about every other ~1 kB frame straddles, and a
   * Buffer made and joined for each showed in a large list's read. Nothing decoded keeps a view
   * of it (strings and parsed JSON are copies).
   */
  private assembly = NO_BYTES;
  /** Bytes of an unfinished frame in `assembly[0, held)`. */
  private held = 0;
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
    if (this.held > 0) {
      // The unfinished frame takes only as much of the chunk as it lacks.
      pos = this.hold(bytes, 0, Math.max(0, 4 - this.held));
      if (this.held < 4) return events;
      const total = 4 + frameLength(this.assembly);
      pos = this.hold(bytes, pos, total - this.held);
      if (this.held < total) return events;
      this.held = 0;
      events.push(this.event(this.assembly, 4, total));
      if (this.assembly.length > ASSEMBLY_BYTES) this.assembly = NO_BYTES;
    }
    while (bytes.length - pos >= 4) {
      const length = frameLength(bytes, pos);
      if (bytes.length - pos - 4 < length) break;
      events.push(this.event(bytes, pos + 4, pos + 4 + length));
      pos += 4 + length;
    }
    // Copied: the transport may reuse the chunk's memory once this returns.
    if (pos < bytes.length) this.hold(bytes, pos, bytes.length - pos);
    return events;
  }

  /** Appends up to `wanted` bytes of `bytes` from `pos` to the held frame; returns where it stopped. */
  private hold(bytes: Buffer, pos: number, wanted: number): number {
    const taken = Math.min(wanted, bytes.length - pos);
    const needed = this.held + taken;
    if (needed > this.assembly.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, ASSEMBLY_BYTES, 2 * this.assembly.length));
      this.assembly.copy(grown, 0, 0, this.held);
      this.assembly = grown;
    }
    bytes.copy(this.assembly, this.held, pos, pos + taken);
    this.held = needed;
    return pos + taken;
  }

  /**
   * Ends the stream.
   * @throws WatchDecodeError when a frame was cut short.
   */
  end(): WatchEvent<T>[] {
    if (this.held > 0) {
      this.held = 0;
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
