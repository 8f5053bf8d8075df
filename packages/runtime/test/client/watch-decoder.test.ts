import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../src/api/types.js';
import { parseWatchLine, WatchDecodeError, WatchDecoder } from '../../src/transport/watch-decoder.js';

const cm = (name: string, rv: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: rv },
  data,
});
const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;

const stream =
  line('ADDED', cm('a', '1')) +
  line('MODIFIED', cm('a', '2', { greeting: 'grüß dich 🌍' })) +
  line('BOOKMARK', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '3' } }) +
  line('DELETED', cm('a', '4')) +
  line('ERROR', {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: 410,
    reason: 'Expired',
    message: 'too old',
  });

const expected: WatchEvent[] = [
  { type: 'ADDED', object: cm('a', '1') },
  { type: 'MODIFIED', object: cm('a', '2', { greeting: 'grüß dich 🌍' }) },
  { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '3' } } },
  { type: 'DELETED', object: cm('a', '4') },
  {
    type: 'ERROR',
    status: {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 410,
      reason: 'Expired',
      message: 'too old',
    },
  },
];

function decodeInChunks(bytes: Uint8Array, sizes: (i: number) => number): WatchEvent[] {
  const decoder = new WatchDecoder();
  const events: WatchEvent[] = [];
  let offset = 0;
  for (let i = 0; offset < bytes.length; i++) {
    const size = Math.max(1, sizes(i));
    events.push(...decoder.push(bytes.subarray(offset, offset + size)));
    offset += size;
  }
  events.push(...decoder.end());
  return events;
}

describe('WatchDecoder', () => {
  const bytes = new TextEncoder().encode(stream);

  it('decodes a stream that arrives in one chunk', () => {
    expect(decodeInChunks(bytes, () => bytes.length)).toEqual(expected);
  });

  it('decodes a stream split one byte at a time (lines and multi-byte characters split)', () => {
    expect(decodeInChunks(bytes, () => 1)).toEqual(expected);
  });

  it('decodes a stream split at every possible chunk size', () => {
    for (let size = 2; size < 200; size += 7) {
      expect(decodeInChunks(bytes, () => size)).toEqual(expected);
    }
    // Irregular sizes, deterministic.
    expect(decodeInChunks(bytes, (i) => ((i * 37) % 53) + 1)).toEqual(expected);
  });

  it('decodes the same events from socket Buffers cut anywhere (a property)', () => {
    const all = Buffer.from(stream.repeat(20));
    const want = Array.from({ length: 20 }, () => expected).flat();
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: all.length }), { maxLength: 60 }), (cuts) => {
        const points = [...new Set([0, ...cuts, all.length])].sort((a, b) => a - b);
        const decoder = new WatchDecoder();
        const events: WatchEvent[] = [];
        // Fresh Buffers, as a socket delivers them (not views of one array).
        for (let i = 1; i < points.length; i++)
          events.push(...decoder.push(Buffer.from(all.subarray(points[i - 1], points[i]))));
        events.push(...decoder.end());
        expect(events).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it('returns events only for completed lines, in order', () => {
    const decoder = new WatchDecoder();
    const first = line('ADDED', cm('a', '1'));
    expect(decoder.push(first.slice(0, 10))).toEqual([]);
    expect(decoder.push(first.slice(10) + line('ADDED', cm('b', '2')).slice(0, 5))).toEqual([
      { type: 'ADDED', object: cm('a', '1') },
    ]);
    expect(decoder.push(line('ADDED', cm('b', '2')).slice(5))).toEqual([
      { type: 'ADDED', object: cm('b', '2') },
    ]);
    expect(decoder.end()).toEqual([]);
  });

  it('skips blank lines and CRLF endings', () => {
    const decoder = new WatchDecoder();
    expect(decoder.push(`\n\r\n${JSON.stringify({ type: 'ADDED', object: cm('a', '1') })}\r\n\n`)).toEqual([
      { type: 'ADDED', object: cm('a', '1') },
    ]);
  });

  it('decodes a last line without its newline at end()', () => {
    const decoder = new WatchDecoder();
    expect(decoder.push(JSON.stringify({ type: 'ADDED', object: cm('a', '1') }))).toEqual([]);
    expect(decoder.end()).toEqual([{ type: 'ADDED', object: cm('a', '1') }]);
  });

  it('fails on a stream cut mid-event at end()', () => {
    const decoder = new WatchDecoder();
    decoder.push('{"type":"ADDED","obj');
    expect(() => decoder.end()).toThrow(WatchDecodeError);
  });

  it('fails on a malformed line', () => {
    const decoder = new WatchDecoder();
    expect(() => decoder.push('not json\n')).toThrow(WatchDecodeError);
  });
});

describe('parseWatchLine', () => {
  it('rejects JSON that is not an event', () => {
    expect(() => parseWatchLine('{"type":"ADDED"}')).toThrow(/not an event/);
    expect(() => parseWatchLine('{"type":"RENAMED","object":{}}')).toThrow(/not an event/);
    expect(() => parseWatchLine('42')).toThrow(/not an event/);
  });
  it('passes ERROR events through with their Status', () => {
    expect(parseWatchLine('{"type":"ERROR","object":{"kind":"Status","code":410}}')).toEqual({
      type: 'ERROR',
      status: { kind: 'Status', code: 410 },
    });
  });
});
