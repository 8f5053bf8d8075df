/**
 * The generated types against a real kube-apiserver, every API version enabled
 * (`--runtime-config=api/all=true`):
 * - every resource descriptor names a resource discovery serves, with its kind and scope, and every
 *   resource discovery serves from k8s.io/api's groups has a descriptor;
 * - random objects of some kinds (./kind-arbitraries.ts), created through JSON, read back in JSON
 *   and in protobuf decode to the same object, and what the server returned type-checks against
 *   the generated types (written out as a TypeScript module and compiled with tsc's API, excess
 *   fields and enum values included).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiVersionOf, type KubeObject, type ResourceType } from '../../src/api/types.js';
import { HttpTransport } from '../../src/client/index.js';
import { rawRequest } from '../client/raw-request.js';
import { kindSamples } from './kind-arbitraries.js';
import { type TypedObject, typeErrors } from './type-check.js';

const env = useOwnControlPlane(
  { apiServerFlags: ['--runtime-config=api/all=true', '--feature-gates=AllAlpha=true,AllBeta=true'] },
  'types',
);
const generated = fileURLToPath(new URL('../../src/api/generated', import.meta.url));

/** Every descriptor of every generated module, with the module it comes from. */
async function descriptors(): Promise<Array<{ file: string; type: ResourceType }>> {
  const out: Array<{ file: string; type: ResourceType }> = [];
  for (const group of readdirSync(generated).sort()) {
    for (const version of readdirSync(join(generated, group)).sort()) {
      const module: Record<string, unknown> = await import(join(generated, group, version));
      for (const value of Object.values(module)) {
        if (typeof value === 'object' && value !== null && 'plural' in value)
          out.push({ file: `${group}/${version.replace(/\.ts$/, '')}`, type: value as ResourceType });
      }
    }
  }
  return out;
}

interface Discovered {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

async function getJson<T>(path: string): Promise<T> {
  const answer = await rawRequest(env.kubeConfig, path, 'application/json');
  return JSON.parse(answer.body.toString('utf8')) as T;
}

/** Resources (no subresources) served per apiVersion, for the groups k8s.io/api declares. */
async function discover(): Promise<Map<string, Discovered[]>> {
  const served = new Map<string, Discovered[]>();
  const versions = ['v1'];
  const { groups } = await getJson<{
    groups: Array<{ name: string; versions: Array<{ groupVersion: string }> }>;
  }>('/apis');
  for (const g of groups) {
    if (g.name === 'apiextensions.k8s.io' || g.name === 'apiregistration.k8s.io') continue; // not k8s.io/api
    versions.push(...g.versions.map((v) => v.groupVersion));
  }
  for (const gv of versions) {
    const { resources } = await getJson<{ resources: Discovered[] }>(gv === 'v1' ? '/api/v1' : `/apis/${gv}`);
    served.set(
      gv,
      resources.filter((r) => !r.name.includes('/')),
    );
  }
  return served;
}

describe('generated types against the apiserver', () => {
  it('every descriptor is a served resource, and every served resource has one', async () => {
    const served = await discover();
    const all = await descriptors();
    const unserved: string[] = [];
    const wrong: string[] = [];
    const described = new Set<string>();
    for (const { type } of all) {
      const gv = apiVersionOf(type);
      const resources = served.get(gv);
      if (!resources) {
        unserved.push(`${gv}/${type.plural}`);
        continue;
      }
      const found = resources.find((r) => r.name === type.plural);
      if (!found) {
        unserved.push(`${gv}/${type.plural}`);
        continue;
      }
      described.add(`${gv}/${type.plural}`);
      if (found.kind !== type.kind || found.namespaced !== type.namespaced)
        wrong.push(
          `${gv}/${type.plural}: ${found.kind} ${found.namespaced} != ${type.kind} ${type.namespaced}`,
        );
    }
    expect(wrong).toEqual([]);
    const undescribed = [...served].flatMap(([gv, resources]) =>
      resources.map((r) => `${gv}/${r.name}`).filter((key) => !described.has(key)),
    );
    // Served without a descriptor: only kinds client-gen gives no client of their own.
    expect(undescribed.sort()).toEqual(['v1/bindings']);
    // Not served: only alpha and beta versions k8s.io/api still declares that a 1.35 apiserver no
    // longer serves (apps/v1beta1, extensions/v1beta1...); every stable descriptor is checked.
    expect(unserved.filter((key) => !/\/v\d+(alpha|beta)\d+\//.test(key))).toEqual([]);
    expect(described.size).toBeGreaterThan(80);
  }, 120_000);

  it('random objects read back alike in JSON and protobuf, and type-check', async () => {
    const json = new HttpTransport(env.kubeConfig, { protobuf: false });
    const pb = new HttpTransport(env.kubeConfig);
    const returned: TypedObject[] = [];
    let serial = 0;
    for (const { type, object } of kindSamples) {
      await fc.assert(
        fc.asyncProperty(object('placeholder', env.namespace), async (candidate) => {
          const name = `rt-${type.plural}-${serial++}`;
          const created = await json.create(type, {
            ...candidate,
            metadata: { ...candidate.metadata, name },
          });
          const key = { namespace: env.namespace, name: created.metadata.name ?? '' };
          const [viaJson, viaPb] = await Promise.all([json.get(type, key), pb.get(type, key)]);
          expect(viaPb).toStrictEqual(viaJson);
          returned.push({ kind: type.kind, module: moduleOf(type), object: viaJson });
        }),
        { numRuns: 5 },
      );
    }
    expect(returned.length).toBe(kindSamples.length * 5);
    expect(typeErrors(returned)).toEqual([]);
  }, 300_000);
  it('every served kind lists alike in JSON and protobuf, and what it lists type-checks', async () => {
    // The server's own objects (bootstrap RBAC, flow schemas, priority classes, namespaces, the
    // kubernetes Service...) and the samples above, for every kind that can be listed.
    const served = await discover();
    const json = new HttpTransport(env.kubeConfig, { protobuf: false });
    const pb = new HttpTransport(env.kubeConfig);
    const listed: TypedObject[] = [];
    let kinds = 0;
    for (const { file, type } of await descriptors()) {
      const resource = served.get(apiVersionOf(type))?.find((r) => r.name === type.plural);
      if (!resource?.verbs.includes('list')) continue;
      kinds++;
      // Leases renew under us: compare two reads of one resourceVersion.
      for (let attempt = 0; ; attempt++) {
        const [viaJson, viaPb] = [await json.list(type), await pb.list(type)];
        if (viaJson.resourceVersion !== viaPb.resourceVersion && attempt < 5) continue;
        // ComponentStatuses are computed per request, in no fixed order.
        expect({ kind: type.kind, items: sorted(viaPb.items) }).toStrictEqual({
          kind: type.kind,
          items: sorted(viaJson.items),
        });
        listed.push(...viaJson.items.map((object) => ({ module: file, kind: type.kind, object })));
        break;
      }
    }
    console.log(`listed ${kinds} kinds, ${listed.length} objects`);
    expect(kinds).toBeGreaterThan(80);
    expect(listed.length).toBeGreaterThan(100);
    expect(typeErrors(listed)).toEqual([]);
  }, 300_000);
});

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
const sorted = (items: KubeObject[]) => [...items].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));

/** The generated module of a kind: `apps/v1`, `core/v1`, `networking/v1`. */
function moduleOf(type: ResourceType): string {
  const group =
    type.group === '' ? 'core' : type.group.replace(/\.k8s\.io$/, '').replace(/\.authorization$/, '');
  return `${group}/${type.version}`;
}
