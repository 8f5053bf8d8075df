import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtobufWatchDecoder } from '../../../src/transport/protobuf/watch-decoder.js';
import { WatchDecodeError } from '../../../src/transport/watch-decoder.js';
import { envelope, message, objectMeta, watchFrame } from './proto-writer.js';

const cm = (name: string, rv: string, payload = '') =>
  envelope(
    'v1',
    'ConfigMap',
    message([
      [1, objectMeta(name, rv)],
      [
        2,
        [
          [1, 'p'],
          [2, payload],
        ],
      ],
    ]),
  );

const stream = Buffer.concat([
  watchFrame('ADDED', cm('a', '1', 'x'.repeat(300))),
  watchFrame('MODIFIED', cm('a', '2', 'ünï')),
  watchFrame('DELETED', cm('b', '3')),
  watchFrame(
    'BOOKMARK',
    envelope(
      'v1',
      'ConfigMap',
      message([
        [
          1,
          [
            [6, '4'],
            [
              12,
              [
                [1, 'k8s.io/initial-events-end'],
                [2, 'true'],
              ],
            ],
          ],
        ],
      ]),
    ),
  ),
  watchFrame(
    'ERROR',
    envelope(
      'v1',
      'Status',
      message([
        [2, 'Failure'],
        [4, 'Expired'],
        [6, 410],
      ]),
    ),
  ),
]);

const decodeAll = (chunks: Buffer[]) => {
  const decoder = new ProtobufWatchDecoder();
  const events = chunks.flatMap((c) => decoder.push(c));
  return [...events, ...decoder.end()];
};

describe('ProtobufWatchDecoder', () => {
  it('decodes every event type, an ERROR as its Status', () => {
    const events = decodeAll([stream]);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);
    expect(events[1]).toMatchObject({
      object: { metadata: { name: 'a', resourceVersion: '2' }, data: { p: 'ünï' } },
    });
    expect(events[3]).toMatchObject({
      object: { metadata: { resourceVersion: '4', annotations: { 'k8s.io/initial-events-end': 'true' } } },
    });
    expect(events[4]).toEqual({
      type: 'ERROR',
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        reason: 'Expired',
        code: 410,
      },
    });
  });

  it('gives the same events however the stream is cut into chunks', () => {
    const whole = decodeAll([stream]);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 30 }),
        (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), stream.length];
          const chunks = points.slice(1).map((end, i) => stream.subarray(points[i], end));
          expect(decodeAll(chunks)).toEqual(whole);
        },
      ),
    );
  });

  it('puts together a frame larger than its buffer, cut anywhere, and small ones after it', () => {
    const big = watchFrame('ADDED', cm('big', '5', 'y'.repeat(100_000)));
    const small = watchFrame('ADDED', cm('small', '6', 'z'));
    const bytes = Buffer.concat([big, small, big, small]);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }),
        (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
          // Each chunk a copy, overwritten once pushed: the decoder must keep nothing of it.
          const decoder = new ProtobufWatchDecoder();
          const events = points.slice(1).flatMap((end, i) => {
            const chunk = Buffer.from(bytes.subarray(points[i], end));
            const out = decoder.push(chunk);
            chunk.fill(0);
            return out;
          });
          expect(events.map((e) => (e.type === 'ERROR' ? '' : e.object.metadata?.name))).toEqual([
            'big',
            'small',
            'big',
            'small',
          ]);
          const first = events[0] as unknown as { object: { data: { p: string } } };
          expect(first.object.data.p).toBe('y'.repeat(100_000));
          expect(decoder.end()).toEqual([]);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('says a stream ended inside a frame, and refuses frames that are not watch events', () => {
    const decoder = new ProtobufWatchDecoder();
    decoder.push(stream.subarray(0, 10));
    expect(() => decoder.end()).toThrow(/inside a frame/);
    expect(() => decodeAll([watchFrame('SOMETHING', cm('a', '1'))])).toThrow(WatchDecodeError);
    expect(() => decodeAll([watchFrame('ADDED', Buffer.from('{"json":true}'))])).toThrow(/malformed event/);
    const huge = Buffer.from([0x7f, 0xff, 0xff, 0xff]);
    expect(() => decodeAll([huge])).toThrow(/a frame of/);
  });

  it('drops managedFields when the receiver says so', () => {
    const managed = envelope('v1', 'ConfigMap', message([[1, objectMeta('a', '1', [[17, [[1, 'm']]]])]]));
    const frame = watchFrame('ADDED', managed);
    expect(new ProtobufWatchDecoder().push(frame)[0]).toMatchObject({
      object: { metadata: { managedFields: [{ manager: 'm' }] } },
    });
    const without = new ProtobufWatchDecoder({ omitManagedFields: true }).push(frame)[0];
    expect(without).not.toHaveProperty('object.metadata.managedFields');
  });
});
