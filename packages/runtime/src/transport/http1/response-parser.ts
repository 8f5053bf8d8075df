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
    if (this.pending !== undefined) {
      data = Buffer.concat([this.pending, bytes]);
      this.pending = undefined;
    }
    // Offsets rather than subarrays: a watch's chunks are at most 2 kB (Go's server chunks what it
    // buffered), and every Buffer made per chunk shows in a large list's read.
    let pos = 0;
    while (pos < data.length && this.phase !== 'done') pos = this.step(data, pos);
    if (pos < data.length) this.trailing = true;
  }

  /** Reads what the current phase can take of `data` from `pos`; returns where the rest begins. */
  private step(data: Buffer, pos: number): number {
    switch (this.phase) {
      case 'head':
        return this.readHead(data, pos);
      case 'fixed':
        return this.readBody(data, pos, 'done');
      case 'chunk-size':
        return this.readChunkSize(data, pos);
      case 'chunk-data':
        return this.readBody(data, pos, 'chunk-end');
      case 'chunk-end':
        return this.readChunkEnd(data, pos);
      case 'trailers':
        return this.readTrailers(data, pos);
      default:
        this.sink(pos === 0 ? data : data.subarray(pos)); // to-close: everything until the end
        return data.length;
    }
  }

  /** The connection ended: completes a response read to the close. @throws MalformedResponseError */
  end(): void {
    if (this.phase === 'to-close') this.phase = 'done';
    if (this.phase !== 'done') throw new MalformedResponseError('the connection closed mid-answer');
  }

  /** Takes up to `remaining` body bytes; `then` is the phase once they are all in. */
  private readBody(data: Buffer, pos: number, then: Phase): number {
    const take = Math.min(this.remaining, data.length - pos);
    this.remaining -= take;
    if (this.remaining === 0) this.phase = then;
    this.sink(pos === 0 && take === data.length ? data : data.subarray(pos, pos + take));
    return pos + take;
  }

  /**
   * Where the `marker` ending a part that starts at `pos` lies in `data`; -1 when `data` ends first,
   * its bytes from `pos` then kept (copied: the socket's buffer may be reused) for the next push.
   */
  private partEnd(data: Buffer, pos: number, marker: Buffer | 'crlf', limit: number, what: string): number {
    const at = marker === 'crlf' ? crlfAt(data, pos) : data.indexOf(marker, pos);
    if (at >= 0) return at;
    if (data.length - pos > limit) throw new MalformedResponseError(`${what} longer than ${limit} bytes`);
    this.pending = Buffer.from(data.subarray(pos));
    return -1;
  }

  private readHead(data: Buffer, pos: number): number {
    const at = this.partEnd(data, pos, HEAD_END, MAX_HEAD_BYTES, 'the response head');
    if (at < 0) return data.length;
    const rest = at + HEAD_END.length;
    const text = data.toString('latin1', pos, at);
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

  private readChunkSize(data: Buffer, pos: number): number {
    const at = this.partEnd(data, pos, 'crlf', MAX_CHUNK_LINE_BYTES, 'a chunk-size line');
    if (at < 0) return data.length;
    this.remaining = chunkSize(data, pos, at);
    this.phase = this.remaining === 0 ? 'trailers' : 'chunk-data';
    return at + 2;
  }

  private readChunkEnd(data: Buffer, pos: number): number {
    if (data[pos] !== CR || (pos + 1 < data.length && data[pos + 1] !== LF))
      throw new MalformedResponseError('a chunk is longer than its size');
    if (pos + 1 === data.length) {
      this.pending = Buffer.from(data.subarray(pos));
      return data.length;
    }
    this.phase = 'chunk-size';
    return pos + 2;
  }

  /** Trailer lines up to an empty one; their contents are not used. */
  private readTrailers(data: Buffer, pos: number): number {
    let at = pos;
    while (at < data.length) {
      const end = this.partEnd(data, at, 'crlf', MAX_HEAD_BYTES, 'the trailers');
      if (end < 0) return data.length;
      if (end === at) {
        this.phase = 'done';
        return end + 2;
      }
      at = end + 2;
    }
    return at;
  }
}

const CR = 13;
const LF = 10;

/** Where the next CRLF from `pos` begins, or -1. Lines here are short: a loop beats a native call. */
function crlfAt(data: Buffer, pos: number): number {
  for (let i = pos; i + 1 < data.length; i++) if (data[i] === CR && data[i + 1] === LF) return i;
  return -1;
}

/**
 * The size of a chunk-size line `data[start, end)`: 1 to 12 hex digits, optional blanks, then an
 * optional extension after `;` (ignored).
 */
function chunkSize(data: Buffer, start: number, end: number): number {
  let size = 0;
  let i = start;
  for (; i < end && i - start < 13; i++) {
    const digit = hexValue(data[i]!);
    if (digit < 0) break;
    size = size * 16 + digit;
  }
  const digits = i - start;
  while (i < end && (data[i] === 0x20 || data[i] === 0x09)) i++;
  if (digits === 0 || digits > 12 || (i < end && data[i] !== 0x3b)) {
    const text = data.toString('latin1', start, end);
    throw new MalformedResponseError(`invalid chunk size: ${JSON.stringify(text)}`);
  }
  return size;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}
