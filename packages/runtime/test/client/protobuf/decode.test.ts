/**
 * The decoder's JSON rules on hand-built protobuf, with the generated schema: what the server
 * leaves out or sends empty, pointers, int-or-strings, quantities, embedded JSON, repeated fields
 * packed or not, unknown fields, and bytes that are not a valid object.
 */
import { describe, expect, it } from 'vitest';
import { decodeObject } from '../../../src/transport/protobuf/envelope.js';
import { ProtobufDecodeError } from '../../../src/transport/protobuf/wire.js';
import { envelope, message, objectMeta, type ProtoField } from './proto-writer.js';

const configMap = (fields: ProtoField[]) => decodeObject(envelope('v1', 'ConfigMap', message(fields)));

describe('decodeObject', () => {
  it('gives kind and apiVersion first, drops empty omitempty strings and zero numbers, formats times', () => {
    const object = configMap([
      [1, objectMeta('a', '7')],
      [
        2,
        [
          [1, 'k'],
          [2, 'v'],
        ],
      ],
    ]);
    expect(JSON.stringify(object)).toBe(
      JSON.stringify({
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: {
          name: 'a',
          namespace: 'ns',
          uid: 'uid-a',
          resourceVersion: '7',
          creationTimestamp: '2025-12-01T23:00:00Z',
        },
        data: { k: 'v' },
      }),
    );
  });

  it('keeps a pointer field that was sent, even with its zero value; base64-encodes bytes', () => {
    const object = configMap([
      [1, objectMeta('a', '1')],
      [4, false],
      [
        3,
        [
          [1, 'bin'],
          [2, Buffer.from([0, 255])],
        ],
      ],
    ]);
    expect(object.immutable).toBe(false);
    expect(object.binaryData).toEqual({ bin: 'AP8=' });
  });

  it('leaves out a zero creationTimestamp (omitzero), as JSON does', () => {
    const object = configMap([
      [
        1,
        [
          [1, 'a'],
          [8, Buffer.alloc(0)],
        ],
      ],
    ]);
    expect(object.metadata).toEqual({ name: 'a' });
  });

  it('shows a non-omitempty zero number, and int-or-strings as numbers or strings', () => {
    const port = (fields: ProtoField[]) =>
      decodeObject(envelope('v1', 'Service', message([[2, [[1, fields]]]]))) as {
        spec: { ports: unknown[] };
      };
    expect(
      port([
        [1, 'http'],
        [3, 0],
        [
          4,
          [
            [1, 1],
            [3, 'http'],
          ],
        ],
      ]).spec.ports,
    ).toEqual([{ name: 'http', port: 0, targetPort: 'http' }]);
    expect(
      port([
        [3, 80],
        [
          4,
          [
            [1, 0],
            [2, 8080],
          ],
        ],
      ]).spec.ports,
    ).toEqual([{ port: 80, targetPort: 8080 }]);
    // A non-pointer struct is never omitted: an IntOrString the server did not send reads as 0.
    expect(port([[3, 80]]).spec.ports).toEqual([{ port: 80, targetPort: 0 }]);
  });

  it('reads quantities, micro-times and embedded JSON', () => {
    const quota = decodeObject(
      envelope(
        'v1',
        'ResourceQuota',
        message([
          [
            2,
            [
              [
                1,
                [
                  [1, 'cpu'],
                  [2, [[1, '500m']]],
                ],
              ],
            ],
          ],
        ]),
      ),
    );
    expect(quota.spec).toEqual({ hard: { cpu: '500m' } });
    const lease = decodeObject(
      envelope(
        'coordination.k8s.io/v1',
        'Lease',
        message([
          [
            2,
            [
              [
                3,
                [
                  [1, 1764630000n],
                  [2, 123456789],
                ],
              ],
            ],
          ],
        ]),
      ),
    );
    expect(lease.spec).toEqual({ acquireTime: '2025-12-01T23:00:00.123456Z' });
    const revision = decodeObject(
      envelope(
        'apps/v1',
        'ControllerRevision',
        message([
          [2, [[1, '{"a":[1,"b",null]}']]],
          [3, 4],
        ]),
      ),
    );
    expect(revision).toMatchObject({ data: { a: [1, 'b', null] }, revision: 4 });
    expect(decodeObject(envelope('apps/v1', 'ControllerRevision', message([]))).data).toBeNull();
  });

  it('refuses a field the schema lacks (a newer server), rather than dropping it', () => {
    expect(() =>
      configMap([
        [1, objectMeta('a', '1')],
        [99, 'from a newer release'],
      ]),
    ).toThrow(/field 99 is not in the schema/);
    expect(() => configMap([[1, objectMeta('a', '1', [[40, 5]])]])).toThrow(/field 40/);
  });

  it('reads repeated numbers packed or one by one', () => {
    // PodSpec.securityContext (14) -> PodSecurityContext.supplementalGroups (4), int64s.
    const pod = (groups: ProtoField) => decodeObject(envelope('v1', 'Pod', message([[2, [[14, [groups]]]]])));
    const packed = Buffer.from([1, 2, 0xac, 0x02]);
    expect((pod([4, packed]).spec as { securityContext: unknown }).securityContext).toMatchObject({
      supplementalGroups: [1, 2, 300],
    });
    const single = decodeObject(
      envelope(
        'v1',
        'Pod',
        message([
          [
            2,
            [
              [
                14,
                [
                  [4, 7],
                  [4, 8],
                ],
              ],
            ],
          ],
        ]),
      ),
    );
    expect(single.spec).toMatchObject({ securityContext: { supplementalGroups: [7, 8] } });
  });

  it('refuses bytes without the magic, truncated ones, a wrong wire type, and kinds it has no schema for', () => {
    expect(() => decodeObject(Buffer.from('{"kind":"ConfigMap"}'))).toThrow(/magic/);
    const whole = envelope('v1', 'ConfigMap', message([[1, objectMeta('a', '1')]]));
    expect(() => decodeObject(whole.subarray(0, whole.length - 3))).toThrow(ProtobufDecodeError);
    expect(() => configMap([[1, 5]])).toThrow(/wire type 0/);
    expect(() => decodeObject(envelope('example.dev/v1', 'Widget', message([])))).toThrow(
      /no schema for example.dev\/v1 Widget/,
    );
  });

  it('skips managedFields when asked, and otherwise decodes them with their fieldsV1 JSON', () => {
    const managed: ProtoField = [
      17,
      [
        [1, 'capstan'],
        [2, 'Update'],
        [3, 'v1'],
        [6, 'FieldsV1'],
        [7, [[1, '{"f:data":{}}']]],
      ],
    ];
    const bytes = envelope('v1', 'ConfigMap', message([[1, objectMeta('a', '1', [managed])]]));
    expect((decodeObject(bytes).metadata as { managedFields: unknown }).managedFields).toEqual([
      {
        manager: 'capstan',
        operation: 'Update',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': {} },
      },
    ]);
    expect(decodeObject(bytes, 0, bytes.length, { withoutManagedFields: true }).metadata).not.toHaveProperty(
      'managedFields',
    );
  });

  it('gives a map entry sent without its value the zero of its kind: "" for a string, {} for a struct', () => {
    const data = configMap([
      [1, objectMeta('a', '1')],
      [2, [[1, 'k']]],
    ]);
    expect(data.data).toEqual({ k: '' });
    // ResourceSlice spec.devices[].attributes: map<string, DeviceAttribute>, every field a pointer.
    const device: ProtoField[] = [
      [1, 'gpu-0'],
      [2, [[1, 'model']]],
    ];
    const slice = decodeObject(
      envelope(
        'resource.k8s.io/v1',
        'ResourceSlice',
        message([
          [1, objectMeta('s', '1')],
          [2, [[6, device]]],
        ]),
      ),
    );
    const spec = slice.spec as { devices: { name: string; attributes: unknown }[] };
    expect(spec.devices).toEqual([{ name: 'gpu-0', attributes: { model: {} } }]);
  });

  it('refuses a map entry whose key or value comes in the wrong wire type', () => {
    expect(() => configMap([[2, [[1, 5]]]])).toThrow(/wire type 0/);
    expect(() => configMap([[2, [[2, 5]]]])).toThrow(/wire type 0/);
  });

  it('decodes a list and a Status', () => {
    const item = message([[1, objectMeta('a', '1')]]);
    const list = decodeObject(
      envelope(
        'v1',
        'ConfigMapList',
        message([
          [
            1,
            [
              [2, '9'],
              [3, 'next'],
            ],
          ],
          [2, item],
          [2, item],
        ]),
      ),
    );
    expect(list.metadata).toEqual({ resourceVersion: '9', continue: 'next' });
    expect((list.items as unknown[]).length).toBe(2);
    const status = decodeObject(
      envelope(
        'v1',
        'Status',
        message([
          [1, []],
          [2, 'Failure'],
          [3, 'gone'],
          [4, 'Expired'],
          [6, 410],
        ]),
      ),
    );
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'gone',
      reason: 'Expired',
      code: 410,
    });
  });
});
