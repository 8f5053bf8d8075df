import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MalformedResponseError, ResponseParser } from '../../../src/transport/http1/response-parser.js';

type Framing = 'length' | 'chunked' | 'close';

interface Sample {
  status: number;
  headers: [string, string][];
  body: Buffer;
  framing: Framing;
  chunkSizes: number[];
  interim: boolean;
}

/** The bytes a server would send for `sample`. */
function serialize(sample: Sample): Buffer {
  const lines = [`HTTP/1.1 ${sample.status} Whatever It Says`];
  for (const [name, value] of sample.headers) lines.push(`${name}: ${value}`);
  const parts: Buffer[] = [];
  if (sample.interim) parts.push(Buffer.from('HTTP/1.1 100 Continue\r\n\r\n'));
  if (sample.framing === 'length') lines.push(`Content-Length: ${sample.body.length}`);
  if (sample.framing === 'chunked') lines.push('Transfer-Encoding: chunked');
  parts.push(Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'));
  if (sample.framing !== 'chunked') parts.push(sample.body);
  else {
    let at = 0;
    for (const size of [...sample.chunkSizes, sample.body.length]) {
      const piece = sample.body.subarray(at, Math.min(sample.body.length, at + size));
      if (piece.length === 0) continue;
      parts.push(Buffer.from(`${piece.length.toString(16)};ext=1\r\n`), piece, Buffer.from('\r\n'));
      at += piece.length;
    }
    parts.push(Buffer.from('0\r\nX-Trailer: t\r\n\r\n'));
  }
  return Buffer.concat(parts);
}

/** Feeds `bytes` cut at `cuts` (offsets, any order); ends the stream too when asked. */
function parse(bytes: Buffer, cuts: number[], end: boolean): ResponseParser {
  const parser = new ResponseParser();
  let at = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    parser.push(bytes.subarray(at, cut));
    at = cut;
  }
  parser.push(bytes.subarray(at));
  if (end) parser.end();
  return parser;
}

const headerName = fc
  .stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/)
  .filter((n) => !['content-length', 'transfer-encoding', 'connection'].includes(n.toLowerCase()));
const sample: fc.Arbitrary<Sample> = fc.record({
  status: fc.integer({ min: 200, max: 599 }).filter((s) => s !== 204 && s !== 304),
  headers: fc.array(fc.tuple(headerName, fc.stringMatching(/^[ -~]{0,40}$/)), { maxLength: 8 }),
  body: fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a)),
  framing: fc.constantFrom<Framing>('length', 'chunked', 'close'),
  chunkSizes: fc.array(fc.integer({ min: 1, max: 700 }), { maxLength: 8 }),
  interim: fc.boolean(),
});

describe('ResponseParser', () => {
  it('reads the same status, headers and body however the bytes are cut (a property)', () => {
    fc.assert(
      fc.property(sample, fc.array(fc.nat(), { maxLength: 12 }), (s, cuts) => {
        const parser = parse(serialize(s), cuts, s.framing === 'close');
        expect(parser.done).toBe(true);
        const answer = parser.answer();
        expect(answer.status).toBe(s.status);
        expect(answer.body.equals(s.body)).toBe(true);
        const expected: Record<string, string[]> = {};
        for (const [name, value] of s.headers) {
          const key = name.toLowerCase();
          expected[key] = [...(expected[key] ?? []), value.trim()];
        }
        for (const [name, values] of Object.entries(expected))
          expect(answer.headers[name]).toBe(values.join(', '));
        // A body read to the close means the connection cannot be reused; the others can.
        expect(parser.closes).toBe(s.framing === 'close');
        expect(parser.trailing).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('is not done before the last byte, and a close then is an error, never an answer (a property)', () => {
    fc.assert(
      fc.property(
        sample.filter((s) => s.framing !== 'close'),
        fc.nat(),
        (s, cut) => {
          const bytes = serialize(s);
          const short = bytes.subarray(0, cut % bytes.length);
          const parser = parse(short, [], false);
          expect(parser.done).toBe(false);
          expect(() => parser.end()).toThrow(MalformedResponseError);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('has no body for HEAD, 204 and 304 whatever the headers say', () => {
    const head = new ResponseParser(true);
    head.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n'));
    expect(head.done).toBe(true);
    expect(head.answer().body.length).toBe(0);
    for (const status of [204, 304]) {
      const parser = new ResponseParser();
      parser.push(Buffer.from(`HTTP/1.1 ${status} X\r\nContent-Length: 5\r\n\r\n`));
      expect(parser.done).toBe(true);
    }
  });

  it('says the connection closes for Connection: close and for HTTP/1.0 without keep-alive', () => {
    const cases: [string, boolean][] = [
      ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', true],
      ['HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', false],
      ['HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n', true],
      ['HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n', false],
    ];
    for (const [text, closes] of cases) {
      const parser = new ResponseParser();
      parser.push(Buffer.from(text));
      expect(parser.done).toBe(true);
      expect(parser.closes).toBe(closes);
    }
  });

  it('marks bytes after the answer as trailing', () => {
    const parser = new ResponseParser();
    parser.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200'));
    expect(parser.done).toBe(true);
    expect(parser.answer().body.toString()).toBe('ok');
    expect(parser.trailing).toBe(true);
  });

  it('refuses what is not a response it can frame, with an error that says why', () => {
    const bad: [string, RegExp][] = [
      ['SSH-2.0-OpenSSH\r\n\r\n', /status line/],
      ['HTTP/2 200\r\n\r\n', /status line/],
      ['HTTP/1.1 200 OK\r\nno colon here\r\n\r\n', /header line/],
      ['HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n', /header line/],
      ['HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n', /Content-Length/],
      ['HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', /Content-Length/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n', /Transfer-Encoding/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /chunk size/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n', /longer than its size/],
      ['HTTP/1.1 101 Switching Protocols\r\n\r\n', /switched protocols/],
    ];
    for (const [text, message] of bad) {
      const parser = new ResponseParser();
      expect(() => parser.push(Buffer.from(text)), text).toThrow(message);
    }
  });

  it('refuses a head that never ends instead of buffering it without bound', () => {
    const parser = new ResponseParser();
    parser.push(Buffer.from('HTTP/1.1 200 OK\r\n'));
    const filler = Buffer.from(`X-Filler: ${'a'.repeat(1000)}\r\n`);
    expect(() => {
      for (let i = 0; i < 100; i++) parser.push(filler);
    }).toThrow(/longer than/);
  });
});
