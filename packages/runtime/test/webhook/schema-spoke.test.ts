import type { UnstructuredObject } from '@capstan/runtime';
import { convert, defineConversion, type OpenApiSchema, schemaSpoke } from '@capstan/runtime/webhook';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * A hub with a field the spoke lacks (`spec.zones`, `status.phase`), a spoke with one the hub
 * lacks (`spec.legacy`, `status.legacyId`), and `spec.port` held as a number on the hub and as a
 * string on the spoke ("" for none).
 */
const hub: Record<string, OpenApiSchema> = {
  spec: {
    properties: {
      host: {},
      port: {},
      zones: { items: { properties: { name: {}, vdc: {} } } },
      labels: { additionalProperties: {} },
    },
  },
  status: { properties: { ready: {}, phase: {} } },
};
const spoke: Record<string, OpenApiSchema> = {
  spec: {
    properties: {
      host: {},
      port: {},
      legacy: { properties: { a: {}, b: {} } },
      labels: { additionalProperties: {} },
    },
  },
  status: { properties: { ready: {}, legacyId: {} } },
};
const ANNOTATION = 'test.capstan.dev/conversion-data';
const scheme = defineConversion({
  group: 'g.test',
  kind: 'Thing',
  hub: 'v2',
  spokes: {
    v1: schemaSpoke({
      hub,
      spoke,
      annotation: ANNOTATION,
      transforms: [
        {
          path: ['spec', 'port'],
          toHub: (v) => (v === '' ? undefined : Number(v)),
          fromHub: (v) => String(v),
        },
      ],
    }),
  },
});

const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const meta = fc.record({
  name: fc.constant('t'),
  annotations: opt(fc.dictionary(fc.constantFrom('a', 'b/c'), fc.string(), { maxKeys: 2 })),
});
const v1 = fc
  .record({
    metadata: meta,
    host: opt(fc.string()),
    port: opt(fc.oneof(fc.constant(''), fc.integer({ min: 1, max: 65535 }).map(String), fc.constant('08'))),
    legacy: opt(fc.record({ a: opt(fc.string()), b: opt(fc.integer()) })),
    ready: opt(fc.boolean()),
    legacyId: opt(fc.string()),
  })
  .map(
    (r): UnstructuredObject => ({
      apiVersion: 'g.test/v1',
      kind: 'Thing',
      metadata: defined(r.metadata) as UnstructuredObject['metadata'],
      spec: defined({ host: r.host, port: r.port, legacy: r.legacy && defined(r.legacy) }),
      status: defined({ ready: r.ready, legacyId: r.legacyId }),
    }),
  );
const v2 = fc
  .record({
    metadata: meta,
    host: opt(fc.string()),
    port: opt(fc.integer({ min: 1, max: 65535 })),
    zones: opt(fc.array(fc.record({ name: fc.string(), vdc: fc.string() }), { maxLength: 3 })),
    phase: opt(fc.constantFrom('Pending', 'Ready')),
  })
  .map(
    (r): UnstructuredObject => ({
      apiVersion: 'g.test/v2',
      kind: 'Thing',
      metadata: defined(r.metadata) as UnstructuredObject['metadata'],
      spec: defined({ host: r.host, port: r.port, zones: r.zones }),
      status: defined({ phase: r.phase }),
    }),
  );
/** Empty annotation maps are dropped by conversion, as the API server drops them. */
const normalized = (o: UnstructuredObject) => {
  const metadata = { ...o.metadata };
  if (Object.keys(metadata.annotations ?? {}).length === 0) delete metadata.annotations;
  return { ...o, metadata };
};

describe('schemaSpoke', () => {
  it('loses nothing from the spoke through the hub and back', () => {
    fc.assert(
      fc.property(v1, (o) => {
        const there = convert(scheme, structuredClone(o), 'g.test/v2');
        expect(convert(scheme, there, 'g.test/v1')).toEqual(normalized(o));
      }),
    );
  });

  it('loses nothing from the hub through the spoke and back', () => {
    fc.assert(
      fc.property(v2, (o) => {
        const there = convert(scheme, structuredClone(o), 'g.test/v1');
        expect(convert(scheme, there, 'g.test/v2')).toEqual(normalized(o));
      }),
    );
  });

  it('holds on the hub only what its schema has; the rest goes in the annotation', () => {
    const o: UnstructuredObject = {
      apiVersion: 'g.test/v1',
      kind: 'Thing',
      metadata: { name: 't' },
      spec: { host: 'h', port: '08', legacy: { a: 'x' } },
      status: { legacyId: 'rde-1' },
    };
    const there = convert(scheme, o, 'g.test/v2') as UnstructuredObject & { spec: unknown; status: unknown };
    expect(there.spec).toEqual({ host: 'h', port: 8 });
    expect(there.status).toEqual({});
    const kept = JSON.parse(there.metadata.annotations?.[ANNOTATION] as string);
    expect(kept).toContainEqual({ path: ['spec', 'legacy'], value: { a: 'x' } });
    expect(kept).toContainEqual({ path: ['spec', 'port'], value: '08', guard: 8 });
  });

  it('lets an edit made on the hub win over the transformed original', () => {
    const o: UnstructuredObject = {
      apiVersion: 'g.test/v1',
      kind: 'Thing',
      metadata: { name: 't' },
      spec: { port: '08' },
    };
    const there = convert(scheme, o, 'g.test/v2') as UnstructuredObject & { spec: { port: number } };
    there.spec.port = 9;
    expect((convert(scheme, there, 'g.test/v1') as UnstructuredObject & { spec: unknown }).spec).toEqual({
      port: '9',
    });
  });

  it('converts an object whose annotation was hand-edited into garbage', () => {
    const o: UnstructuredObject = {
      apiVersion: 'g.test/v2',
      kind: 'Thing',
      metadata: { name: 't', annotations: { [ANNOTATION]: '{not json' } },
      spec: { host: 'h' },
    };
    const back = convert(scheme, o, 'g.test/v1') as UnstructuredObject & { spec: unknown };
    expect(back.spec).toEqual({ host: 'h' });
    expect(back.metadata.annotations).toBeUndefined();
  });
});
