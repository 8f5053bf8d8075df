import type { KubeObject } from '@capstan/runtime';
import { ConversionError, ConversionRegistry, convert, defineConversion } from '@capstan/runtime/webhook';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BeaconV1,
  type BeaconV1alpha1,
  beaconConversion,
  GROUP,
  PROTOCOL_ANNOTATION,
} from './beacon.js';

const key = fc
  .stringMatching(/^[a-z][a-z0-9.-]{0,20}(\/[a-z0-9-]{1,10})?$/)
  .filter((k) => k !== PROTOCOL_ANNOTATION);
const strings = fc.dictionary(key, fc.string({ maxLength: 10 }), { maxKeys: 3 });
const metadata = fc.record(
  {
    name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
    namespace: fc.constant('ns'),
    uid: fc.uuid(),
    resourceVersion: fc.integer({ min: 1 }).map(String),
    labels: strings,
    annotations: strings,
  },
  { requiredKeys: ['name', 'namespace', 'uid'] },
);
const host = fc.domain();
const port = fc.integer({ min: 1, max: 65535 });

const v1alpha1 = fc.record({ metadata, host, port }).map(
  ({ metadata, host, port }): BeaconV1alpha1 => ({
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'Beacon',
    metadata,
    spec: { host, port },
  }),
);
const v1 = fc
  .record({
    metadata,
    host,
    port,
    protocol: fc.option(fc.constantFrom('tcp' as const, 'udp' as const), { nil: undefined }),
  })
  .map(
    ({ metadata, host, port, protocol }): BeaconV1 => ({
      apiVersion: `${GROUP}/v1`,
      kind: 'Beacon',
      metadata,
      spec: { address: { host, port }, ...(protocol ? { protocol } : {}) },
    }),
  );

/** Empty label and annotation maps are dropped by conversion, as the API server drops them. */
const normalized = (o: KubeObject) => {
  const metadata = { ...o.metadata };
  for (const field of ['labels', 'annotations'] as const)
    if (Object.keys(metadata[field] ?? {}).length === 0) delete metadata[field];
  return { ...o, metadata };
};

describe('hub-and-spoke conversion', () => {
  it('any v1alpha1 object survives spoke → hub → spoke', () => {
    fc.assert(
      fc.property(v1alpha1, (spoke) => {
        const hub = convert(beaconConversion, spoke, `${GROUP}/v1`);
        expect(hub.apiVersion).toBe(`${GROUP}/v1`);
        expect(convert(beaconConversion, hub, `${GROUP}/v1alpha1`)).toEqual(normalized(spoke));
      }),
    );
  });

  it('any v1 object survives hub → spoke → hub, its v1-only field kept in an annotation', () => {
    fc.assert(
      fc.property(v1, (hub) => {
        const spoke = convert(beaconConversion, hub, `${GROUP}/v1alpha1`);
        expect(spoke.spec).not.toHaveProperty('protocol');
        expect(convert(beaconConversion, spoke, `${GROUP}/v1`)).toEqual(normalized(hub));
      }),
    );
  });

  it('keeps every metadata field but labels and annotations from the object given, whatever a spoke returns', () => {
    const sloppy = defineConversion<KubeObject>({
      group: GROUP,
      kind: 'Beacon',
      hub: 'v1',
      spokes: {
        v1alpha1: {
          toHub: (o) => ({ metadata: { name: 'renamed', labels: { added: 'yes' } }, spec: o.spec }),
          fromHub: (o) => o,
        },
      },
    });
    fc.assert(
      fc.property(v1alpha1, (spoke) => {
        const hub = convert(sloppy, spoke, `${GROUP}/v1`);
        const { labels: _l, annotations: _a, ...kept } = spoke.metadata;
        expect(hub.metadata).toEqual({ ...kept, labels: { added: 'yes' } });
      }),
    );
  });

  it('converts a mixed list object by object and leaves objects already at the version as they are', () => {
    const registry = new ConversionRegistry();
    registry.add(beaconConversion);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(v1alpha1, v1), { maxLength: 6 }),
        fc.constantFrom('v1', 'v1alpha1'),
        (objects, version) => {
          const converted = registry.convertAll(objects, `${GROUP}/${version}`);
          expect(converted.map((o) => o.apiVersion)).toEqual(objects.map(() => `${GROUP}/${version}`));
          objects.forEach((o, i) => {
            expect(converted[i]).toEqual(
              o.apiVersion === `${GROUP}/${version}`
                ? o
                : convert(beaconConversion, o, `${GROUP}/${version}`),
            );
          });
        },
      ),
    );
  });

  it('refuses unknown versions and kinds with a message naming what is known', () => {
    const registry = new ConversionRegistry();
    registry.add(beaconConversion);
    const beacon = { apiVersion: `${GROUP}/v1`, kind: 'Beacon', metadata: {}, spec: {} };
    expect(() => registry.convertAll([beacon], `${GROUP}/v2`)).toThrow(
      /no version v2 \(known: v1, v1alpha1\)/,
    );
    expect(() => registry.convertAll([{ ...beacon, kind: 'Lamp' }], `${GROUP}/v1`)).toThrow(ConversionError);
    expect(() => registry.add(beaconConversion)).toThrow(/registered already/);
    expect(() =>
      defineConversion({
        group: GROUP,
        kind: 'X',
        hub: 'v1',
        spokes: { v1: { toHub: (o) => o, fromHub: (o) => o } },
      }),
    ).toThrow(/cannot also be a spoke/);
  });
});
