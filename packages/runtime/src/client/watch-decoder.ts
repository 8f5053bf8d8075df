/**
 * Incremental decoder of a watch stream: newline-delimited JSON, one `{type, object}` per line,
 * arriving in chunks that may split a line (or a multi-byte character) anywhere.
 */
import type { ApiStatus, KubeObject, WatchEvent } from './types.js';

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** A watch line that is not a well-formed event. */
export class WatchDecodeError extends Error {
  override readonly name = 'WatchDecodeError';
}

/**
 * Splits a byte stream into watch events. Feed chunks with {@link WatchDecoder.push}; call
 * {@link WatchDecoder.end} when the stream ends to decode a last line that lacks its newline.
 */
export class WatchDecoder<T extends KubeObject = KubeObject> {
  // `stream: true` keeps a multi-byte character split across chunks until its last byte arrives.
  private readonly text = new TextDecoder('utf-8');
  /**
   * The pieces of a line whose newline has not arrived yet. Kept as parts, not one growing string,
   * so a large object split over many chunks is joined once, not rescanned on every chunk.
   */
  private partial: string[] = [];

  /**
   * Decodes one chunk; returns the events of every line it completed, in order.
   * @throws WatchDecodeError for a line that is not a watch event.
   */
  push(chunk: Uint8Array | string): WatchEvent<T>[] {
    const data = typeof chunk === 'string' ? chunk : this.text.decode(chunk, { stream: true });
    const events: WatchEvent<T>[] = [];
    let start = 0;
    let newline = data.indexOf('\n');
    while (newline !== -1) {
      let line = data.slice(start, newline);
      if (this.partial.length > 0) {
        this.partial.push(line);
        line = this.partial.join('');
        this.partial = [];
      }
      const event = parseWatchLine<T>(line);
      if (event) events.push(event);
      start = newline + 1;
      newline = data.indexOf('\n', start);
    }
    if (start < data.length) this.partial.push(data.slice(start));
    return events;
  }

  /**
   * Ends the stream; returns the event of a last unterminated line, if any.
   * @throws WatchDecodeError when that line is incomplete (a stream cut mid-event).
   */
  end(): WatchEvent<T>[] {
    const rest = this.partial.join('') + this.text.decode();
    this.partial = [];
    const event = parseWatchLine<T>(rest);
    return event ? [event] : [];
  }
}

/**
 * Parses one line of a watch stream; `undefined` for a blank line. ERROR events carry the
 * server's Status (e.g. code 410 when the resourceVersion is too old).
 * @throws WatchDecodeError for anything else that is not a watch event.
 */
export function parseWatchLine<T extends KubeObject = KubeObject>(line: string): WatchEvent<T> | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new WatchDecodeError(`watch stream: malformed line: ${text.slice(0, 200)}`, { cause: err });
  }
  if (typeof value !== 'object' || value === null) {
    throw new WatchDecodeError(`watch stream: not an event: ${text.slice(0, 200)}`);
  }
  const { type, object } = value as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !EVENT_TYPES.has(type) || typeof object !== 'object' || object === null) {
    throw new WatchDecodeError(`watch stream: not an event: ${text.slice(0, 200)}`);
  }
  if (type === 'ERROR') return { type, status: object as ApiStatus };
  return { type: type as 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', object: object as T };
}
