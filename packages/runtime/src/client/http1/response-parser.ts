/**
 * An incremental HTTP/1.1 response reader: bytes in, cut anywhere; one response's status, headers
 * and body out. Bodies are framed as RFC 9112 says: none (HEAD, 1xx, 204, 304), chunked,
 * Content-Length, or up to the end of the connection. Interim (1xx) answers are skipped.
 */

/** Header names in lower case; repeated headers joined with ", " (as Node does for most). */
export type ResponseHeaders = Record<string, string>;

/** A response as read whole. */
export interface Answer {
  status: number;
  headers: ResponseHeaders;
  body: Buffer;
}

/** The bytes are not an HTTP/1.1 response this reader accepts. */
export class MalformedResponseError extends Error {
  override readonly name = 'MalformedResponseError';
}

/** Longest status line plus headers accepted, as Node's default (16 KiB) and then some. */
export const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE_BYTES = 4096;
const HEAD_END = Buffer.from('\r\n\r\n');
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CRLF = Buffer.from('\r\n');

type Phase = 'head' | 'fixed' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'to-close' | 'done';

/**
 * Reads one response. {@link ResponseParser.push} each piece of the stream, then
 * {@link ResponseParser.end} when the connection ends; the answer is ready when {@link done}.
 * Bytes after the response mark it {@link trailing}: the connection is then not reused.
 */
export class ResponseParser {
  private phase: Phase = 'head';
  /** Unread bytes of a part not complete yet (the head, a chunk-size line, the trailers). */
  private pending: Buffer | undefined;
  private remaining = 0;
  private readonly parts: Buffer[] = [];
  status = 0;
  headers: ResponseHeaders = {};
  /** The server will close the connection after this response (or it is HTTP/1.0 without keep-alive). */
  closes = false;
  /** Bytes came after the response ended. */
  trailing = false;
  /** Whether any byte of the response arrived (a reused connection that closed before one may be retried). */
  started = false;
  /** Called once the final head is read (status and headers set), before any byte of the body. */
  onHead: (() => void) | undefined;
  /**
   * Where the body's bytes go as they are read; by default they are kept for {@link answer}.
   * Replace it (in {@link onHead} at the latest) to take a streamed body piece by piece.
   */
  sink: (bytes: Buffer) => void = (bytes) => {
    this.parts.push(bytes);
  };

  /** @param bodiless The request was a HEAD: the response has no body whatever it says. */
  constructor(private readonly bodiless = false) {}

  get done(): boolean {
    return this.phase === 'done';
  }

  /** The whole response; valid once {@link done}. */
  answer(): Answer {
    const body = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    return { status: this.status, headers: this.headers, body };
  }

  /** Takes the next bytes of the stream. @throws MalformedResponseError */
  push(bytes: Buffer): void {
    if (bytes.length > 0) this.started = true;
    let data = bytes;
    while (data.length > 0 && this.phase !== 'done') data = this.step(data);
    if (data.length > 0) this.trailing = true;
  }

  /** Reads what the current phase can take of `data`; returns the rest. */
  private step(data: Buffer): Buffer {
    switch (this.phase) {
      case 'head':
        return this.readHead(data);
      case 'fixed':
        return this.readBody(data, 'done');
      case 'chunk-size':
        return this.readChunkSize(data);
      case 'chunk-data':
        return this.readBody(data, 'chunk-end');
      case 'chunk-end':
        return this.readChunkEnd(data);
      case 'trailers':
        return this.readTrailers(data);
      default:
        this.sink(data); // to-close: everything until the end
        return data.subarray(data.length);
    }
  }

  /** The connection ended: completes a response read to the close. @throws MalformedResponseError */
  end(): void {
    if (this.phase === 'to-close') this.phase = 'done';
    if (this.phase !== 'done') throw new MalformedResponseError('the connection closed mid-answer');
  }

  /** Takes up to `remaining` body bytes; `then` is the phase once they are all in. */
  private readBody(data: Buffer, then: Phase): Buffer {
    const take = Math.min(this.remaining, data.length);
    this.remaining -= take;
    if (this.remaining === 0) this.phase = then;
    this.sink(data.subarray(0, take));
    return data.subarray(take);
  }

  /** Takes bytes into `pending` until `marker`; returns the whole part and the rest, or undefined. */
  private until(data: Buffer, marker: Buffer, limit: number, what: string): [Buffer, Buffer] | undefined {
    const before = this.pending?.length ?? 0;
    const joined = this.pending ? Buffer.concat([this.pending, data]) : data;
    // The marker may straddle the seam: search from just before it.
    const at = joined.indexOf(marker, Math.max(0, before - marker.length + 1));
    if (at < 0) {
      if (joined.length > limit) throw new MalformedResponseError(`${what} longer than ${limit} bytes`);
      this.pending = Buffer.from(joined); // a copy: the socket's buffer may be reused
      return undefined;
    }
    this.pending = undefined;
    return [joined.subarray(0, at), joined.subarray(at + marker.length)];
  }

  private readHead(data: Buffer): Buffer {
    const cut = this.until(data, HEAD_END, MAX_HEAD_BYTES, 'the response head');
    if (!cut) return data.subarray(data.length);
    const [head, rest] = cut;
    const text = head.toString('latin1');
    let end = text.indexOf('\r\n');
    if (end < 0) end = text.length;
    const match = STATUS_LINE.exec(text.slice(0, end));
    if (!match)
      throw new MalformedResponseError(`not an HTTP/1.x status line: ${JSON.stringify(text.slice(0, end))}`);
    const minor = match[1];
    const status = Number(match[2]);
    const headers: ResponseHeaders = {};
    // Line by line with indexOf: a split and a pattern per line cost several times as much.
    while (end < text.length) {
      const start = end + 2;
      end = text.indexOf('\r\n', start);
      if (end < 0) end = text.length;
      const colon = text.indexOf(':', start);
      if (colon <= start || colon >= end || !TOKEN.test(text.slice(start, colon)))
        throw new MalformedResponseError(`not a header line: ${JSON.stringify(text.slice(start, end))}`);
      const name = text.slice(start, colon).toLowerCase();
      const value = text.slice(colon + 1, end).trim();
      const seen = headers[name];
      headers[name] = seen === undefined ? value : `${seen}, ${value}`;
    }
    if (status >= 100 && status < 200) {
      if (status === 101) throw new MalformedResponseError('the server switched protocols');
      return rest; // an interim answer: the real one follows
    }
    this.status = status;
    this.headers = headers;
    const connection = (headers.connection ?? '').toLowerCase();
    this.closes = minor === '0' ? !connection.includes('keep-alive') : connection.includes('close');
    this.frame(headers);
    this.onHead?.();
    return rest;
  }

  private frame(headers: ResponseHeaders): void {
    if (this.bodiless || this.status === 204 || this.status === 304) {
      this.phase = 'done';
      return;
    }
    const coding = headers['transfer-encoding'];
    if (coding !== undefined) {
      if (!/(?:^|,)\s*chunked\s*$/i.test(coding))
        throw new MalformedResponseError(`unsupported Transfer-Encoding: ${coding}`);
      this.phase = 'chunk-size';
      return;
    }
    const length = headers['content-length'];
    if (length !== undefined) {
      const values = new Set(length.split(',').map((v) => v.trim()));
      const [only] = values;
      if (values.size !== 1 || only === undefined || !/^\d{1,15}$/.test(only))
        throw new MalformedResponseError(`invalid Content-Length: ${length}`);
      this.remaining = Number(only);
      this.phase = this.remaining === 0 ? 'done' : 'fixed';
      return;
    }
    this.closes = true;
    this.phase = 'to-close';
  }

  private readChunkSize(data: Buffer): Buffer {
    const cut = this.until(data, CRLF, MAX_CHUNK_LINE_BYTES, 'a chunk-size line');
    if (!cut) return data.subarray(data.length);
    const [line, rest] = cut;
    const text = line.toString('latin1');
    const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(text);
    if (!size) throw new MalformedResponseError(`invalid chunk size: ${JSON.stringify(text)}`);
    this.remaining = Number.parseInt(size[1] as string, 16);
    this.phase = this.remaining === 0 ? 'trailers' : 'chunk-data';
    return rest;
  }

  private readChunkEnd(data: Buffer): Buffer {
    const cut = this.until(data, CRLF, CRLF.length, 'a chunk');
    if (!cut) return data.subarray(data.length);
    const [between, rest] = cut;
    if (between.length !== 0) throw new MalformedResponseError('a chunk is longer than its size');
    this.phase = 'chunk-size';
    return rest;
  }

  /** Trailer lines up to an empty one; their contents are not used. */
  private readTrailers(data: Buffer): Buffer {
    let rest = data;
    while (rest.length > 0) {
      const cut = this.until(rest, CRLF, MAX_HEAD_BYTES, 'the trailers');
      if (!cut) return rest.subarray(rest.length);
      const [line, after] = cut;
      rest = after;
      if (line.length === 0) {
        this.phase = 'done';
        return rest;
      }
    }
    return rest;
  }
}
