/**
 * The generated types against a real kube-apiserver, every API version enabled
 * (`--runtime-config=api/all=true`):
 * - every resource descriptor names a resource discovery serves, with its kind and scope, and every
 *   resource discovery serves from k8s.io/api's groups has a descriptor;
 * - random objects of every kind served with `create` (./kind-arbitraries.ts, or ./kind-bodies.ts
 *   with random metadata; the kinds envtest cannot store listed there with the reason), created
 *   through JSON, read back in JSON and in protobuf decode to the same object, and what the server
 *   returned type-checks against
 *   the generated types (written out as a TypeScript module and compiled with tsc's API, excess
 *   fields and enum values included).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apiVersionOf,
  type KubeObject,
  type ResourceType,
  type UnstructuredObject,
} from '../../src/api/types.js';
import { HttpTransport } from '../../src/client/index.js';
import { rawRequest } from '../client/raw-request.js';
import { kindSamples } from './kind-arbitraries.js';
import { type BodyContext, KIND_BODIES, NOT_CREATABLE } from './kind-bodies.js';
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

  it('random objects of every creatable kind read back alike in JSON and protobuf, and type-check', async () => {
    const served = await discover();
    const json = new HttpTransport(env.kubeConfig, { protobuf: false });
    const pb = new HttpTransport(env.kubeConfig);
    const context = { namespace: env.namespace, caPem: servingCa(env.plane.kubeconfigPath) };
    const returned: TypedObject[] = [];
    const noBody: string[] = [];
    let serial = 0;
    let kinds = 0;
    for (const { file, type } of await descriptors()) {
      const resource = served.get(apiVersionOf(type))?.find((r) => r.name === type.plural);
      // Not creatable here: listed with the reason in NOT_CREATABLE, checked below.
      if (!resource?.verbs.includes('create') || type.kind in NOT_CREATABLE) continue;
      const objects = arbitraryOf(type, context);
      if (!objects) {
        noBody.push(`${apiVersionOf(type)} ${type.kind}`);
        continue;
      }
      kinds++;
      await fc.assert(
        fc.asyncProperty(objects, async (candidate) => {
          const name = nameOf(type, serial++);
          const namespace = type.namespaced ? env.namespace : undefined;
          const { namespace: _drawn, ...metadata } = candidate.metadata;
          const created = await json.create(type, {
            ...candidate,
            metadata: { ...metadata, name, namespace },
          });
          const key = { namespace, name: created.metadata.name ?? '' };
          // A server controller may write it between the two reads (a FlowSchema's status): compare
          // two reads of one resourceVersion.
          let [viaJson, viaPb] = await Promise.all([json.get(type, key), pb.get(type, key)]);
          for (let i = 0; i < 5 && viaJson.metadata.resourceVersion !== viaPb.metadata.resourceVersion; i++)
            [viaJson, viaPb] = await Promise.all([json.get(type, key), pb.get(type, key)]);
          expect(viaPb, `${apiVersionOf(type)} ${type.kind}`).toStrictEqual(viaJson);
          returned.push({ kind: type.kind, module: file, object: viaJson });
        }),
        { numRuns: RUNS },
      );
    }
    expect(noBody, 'creatable kinds with neither a body nor a reason in NOT_CREATABLE').toEqual([]);
    // Every kind NOT_CREATABLE names is served with create: the list holds no stale entry.
    const creatable = new Set(
      [...served.values()].flat().flatMap((r) => (r.verbs.includes('create') ? [r.kind] : [])),
    );
    expect(Object.keys(NOT_CREATABLE).filter((kind) => !creatable.has(kind))).toEqual([]);
    console.log(`round-tripped ${returned.length} objects of ${kinds} kind versions`);
    expect(returned.length).toBe(kinds * RUNS);
    expect(kinds).toBeGreaterThan(70);
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

/** Random objects per kind: a few, as every kind gets its own. */
const RUNS = 2;

/** A kind's random objects: its arbitrary when it has one, else its body with random metadata. */
function arbitraryOf(type: ResourceType, context: BodyContext): fc.Arbitrary<UnstructuredObject> | undefined {
  const sampled = kindSamples.find(
    (s) => apiVersionOf(s.type) === apiVersionOf(type) && s.type.kind === type.kind,
  );
  if (sampled) return sampled.object('placeholder', context.namespace) as fc.Arbitrary<UnstructuredObject>;
  const body = KIND_BODIES[`${apiVersionOf(type)} ${type.kind}`] ?? KIND_BODIES[type.kind];
  return body && metadata.map((m) => ({ ...body(context), metadata: m }));
}

const word = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
const metadata = fc.record({
  labels: fc.dictionary(word, word, { maxKeys: 3 }),
  annotations: fc.dictionary(
    word.map((k) => `capstan.dev/${k}`),
    fc.string({ maxLength: 16 }),
    { maxKeys: 2 },
  ),
});

/** A name the kind accepts: an IPAddress is named by its address, a StorageVersion `group.resource`. */
function nameOf(type: ResourceType, serial: number): string {
  if (type.kind === 'IPAddress') return `10.96.${serial >> 8}.${(serial % 250) + 1}`;
  if (type.kind === 'StorageVersion') return `capstan.dev.rt${serial}`;
  return `rt-${type.plural}-${serial}`;
}

/** The CA (PEM) of the envtest kubeconfig: one certificate the server has. */
function servingCa(kubeconfigPath: string): string {
  const data = /certificate-authority-data:\s*(\S+)/.exec(readFileSync(kubeconfigPath, 'utf8'))?.[1];
  if (!data) throw new Error(`${kubeconfigPath} has no certificate-authority-data`);
  return Buffer.from(data, 'base64').toString('utf8');
}
