/** A small protobuf writer for the decoder tests: builds the bytes a Kubernetes server would send. */

/** One field: number, and a value that says its wire type (bigint: a varint, Buffer or string: bytes). */
export type ProtoField = [number, bigint | number | boolean | string | Buffer | ProtoField[]];

export function varint(value: bigint): Buffer {
  let v = BigInt.asUintN(64, value);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Buffer.from(out);
}

/** Encodes fields in the order given. Numbers and booleans are varints; arrays are sub-messages. */
export function message(fields: ProtoField[]): Buffer {
  const parts: Buffer[] = [];
  for (const [number, value] of fields) {
    if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') {
      parts.push(
        varint(BigInt(number << 3)),
        varint(BigInt(typeof value === 'boolean' ? Number(value) : value)),
      );
    } else {
      const bytes = Array.isArray(value) ? message(value) : Buffer.from(value);
      parts.push(varint(BigInt((number << 3) | 2)), varint(BigInt(bytes.length)), bytes);
    }
  }
  return Buffer.concat(parts);
}

/** `k8s\0` + runtime.Unknown around a message of `apiVersion` `kind`. */
export function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const unknown = message([
    [
      1,
      [
        [1, apiVersion],
        [2, kind],
      ],
    ],
    [2, raw],
    [3, ''],
    [4, ''],
  ]);
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
}

/** One length-prefixed frame of a protobuf watch. */
export function watchFrame(type: string, object: Buffer): Buffer {
  const event = message([
    [1, type],
    [2, [[1, object]]],
  ]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(event.length);
  return Buffer.concat([length, event]);
}

/** An ObjectMeta the way the server writes one: every non-pointer string, even empty. */
export function objectMeta(name: string, rv: string, extra: ProtoField[] = []): ProtoField[] {
  return [
    [1, name],
    [2, ''],
    [3, 'ns'],
    [4, ''],
    [5, `uid-${name}`],
    [6, rv],
    [7, 0],
    [8, [[1, 1764630000n]]],
    ...extra,
  ];
}
