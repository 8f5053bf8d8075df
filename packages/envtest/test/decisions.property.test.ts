/**
 * Property tests of envtest's pure decisions: node objects, contract labels, conversion stanzas,
 * version stamps, controllers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withContractLabels, withConversionWebhook } from '../src/cluster-api.js';
import { kubeVersionFlags } from '../src/components.js';
import { withRequiredControllers } from '../src/control-plane.js';
import { kwokManagedValue, kwokNodeAnnotation } from '../src/kwok.js';
import { type NodeSpec, nodeObject, nodeSpecs, nodeUp, notReadyTaints } from '../src/nodes.js';

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
const labels = fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z0-9]{0,8}$/));
const spec: fc.Arbitrary<NodeSpec> = fc.record(
  {
    name,
    labels,
    annotations: fc.oneof(labels, fc.constant({ [kwokNodeAnnotation]: 'someone-else' })),
    taints: fc.array(
      fc.record({
        key: fc.stringMatching(/^[a-z]{1,8}$/),
        effect: fc.constantFrom('NoSchedule' as const, 'PreferNoSchedule' as const, 'NoExecute' as const),
      }),
      { maxLength: 3 },
    ),
    unschedulable: fc.boolean(),
    providerID: fc.stringMatching(/^[a-z]+:\/\/[a-z0-9-]{1,12}$/),
    bootID: fc.uuid(),
    osImage: fc.string({ maxLength: 20 }),
  },
  { requiredKeys: ['name'] },
);

type NodeJson = {
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: { providerID?: string; taints?: unknown[]; unschedulable?: boolean };
  status: { nodeInfo: Record<string, string> };
};

describe('nodeObject', () => {
  it('always hands the node to kwok and keeps what the spec says', () => {
    fc.assert(
      fc.property(spec, (s) => {
        const node = nodeObject(s, 'v1.35.4') as unknown as NodeJson;
        expect(node.metadata.name).toBe(s.name);
        expect(node.metadata.annotations[kwokNodeAnnotation]).toBe(kwokManagedValue);
        for (const [k, v] of Object.entries(s.labels ?? {})) expect(node.metadata.labels[k]).toBe(v);
        expect(node.spec.providerID).toBe(s.providerID);
        expect(node.spec.taints).toEqual(s.taints?.length ? s.taints : undefined);
        expect(node.spec.unschedulable).toBe(s.unschedulable ? true : undefined);
        if (s.bootID) expect(node.status.nodeInfo.bootID).toBe(s.bootID);
        expect(node.status.nodeInfo.kubeletVersion).toBe('v1.35.4');
        expect(node.status.nodeInfo.machineID).toMatch(/^[0-9a-f]{32}$/);
      }),
    );
  });

  it('derives the machine ID from the name; boot IDs differ between nodes unless given', () => {
    fc.assert(
      fc.property(name, (n) => {
        const a = nodeObject({ name: n }, 'v1') as unknown as NodeJson;
        const b = nodeObject({ name: n }, 'v1') as unknown as NodeJson;
        expect(a.status.nodeInfo.machineID).toBe(b.status.nodeInfo.machineID);
        expect(a.status.nodeInfo.bootID).not.toBe(b.status.nodeInfo.bootID);
      }),
    );
  });

  it('nodeSpecs names count distinct nodes and refuses a count that is not a whole number', () => {
    fc.assert(
      fc.property(fc.nat(50), name, (count, prefix) => {
        const names = nodeSpecs(count, prefix).map((s) => s.name);
        expect(new Set(names).size).toBe(count);
      }),
    );
    expect(() => nodeSpecs(-1, 'n')).toThrow(/whole number/);
    expect(() => nodeSpecs(1.5, 'n')).toThrow(/whole number/);
  });
});

describe('nodeUp', () => {
  it('is true exactly when Ready is True and no not-ready taint is left', () => {
    const condition = fc.constantFrom('True', 'False', 'Unknown', undefined);
    const taintKeys = fc.subarray([...notReadyTaints, 'other']);
    fc.assert(
      fc.property(condition, taintKeys, (ready, keys) => {
        const node = {
          spec: { taints: keys.map((key) => ({ key })) },
          status: { conditions: ready ? [{ type: 'Ready', status: ready }] : [] },
        };
        expect(nodeUp(node)).toBe(ready === 'True' && !keys.some((k) => notReadyTaints.includes(k)));
      }),
    );
  });
});

describe('withContractLabels', () => {
  it("keeps a CRD's labels and adds the contract labels", () => {
    fc.assert(
      fc.property(
        labels,
        fc.array(fc.stringMatching(/^v[0-9]alpha[0-9]$/), { minLength: 1, maxLength: 3 }),
        (existing, versions) => {
          const crd = { kind: 'CustomResourceDefinition', metadata: { name: 'x', labels: existing } };
          const own = withContractLabels(crd);
          expect(own.metadata?.labels).toEqual({
            ...existing,
            'cluster.x-k8s.io/v1beta1': 'v1beta1',
            'cluster.x-k8s.io/v1beta2': 'v1beta2',
          });
          const provider = withContractLabels(crd, { contract: 'v1beta2', versions });
          expect(provider.metadata?.labels).toEqual({
            ...existing,
            'cluster.x-k8s.io/v1beta2': versions.join('_'),
          });
          expect(crd.metadata.labels).toBe(existing); // the input is not changed
        },
      ),
    );
  });
});

describe('kubeVersionFlags', () => {
  it('stamps every key into every package, major and minor read from the version', () => {
    fc.assert(
      fc.property(
        fc.nat(40),
        fc.nat(99),
        fc.nat(99),
        fc.array(name, { minLength: 1, maxLength: 3 }),
        (ma, mi, pa, pkgs) => {
          const version = `v${ma}.${mi}.${pa}`;
          const flags = kubeVersionFlags(pkgs, version, '2026-01-01T00:00:00Z');
          expect(flags).toHaveLength(pkgs.length * 6);
          for (const pkg of pkgs) {
            expect(flags).toContain(`-X ${pkg}.gitVersion=${version}`);
            expect(flags).toContain(`-X ${pkg}.gitMajor=${ma}`);
            expect(flags).toContain(`-X ${pkg}.gitMinor=${mi}`);
            expect(flags).toContain(`-X ${pkg}.gitTreeState=clean`);
            expect(flags).toContain(`-X ${pkg}.buildDate=2026-01-01T00:00:00Z`);
            // Empty, never the unexpanded `$Format:%H$` placeholder.
            expect(flags).toContain(`-X ${pkg}.gitCommit=`);
          }
        },
      ),
    );
    expect(() => kubeVersionFlags(['p'], 'main', '')).toThrow(/not a semantic version/);
  });
});

describe('withRequiredControllers', () => {
  it('adds what kwok and Cluster API need, once, and keeps what was asked', () => {
    const controller = fc.constantFrom(
      'garbagecollector',
      'nodelifecycle',
      'deployment',
      'clusterrole-aggregation',
    );
    fc.assert(
      fc.property(fc.uniqueArray(controller), fc.boolean(), fc.boolean(), (asked, kwok, clusterApi) => {
        const list = withRequiredControllers(asked, { kwok, clusterApi });
        expect(list.slice(0, asked.length)).toEqual(asked);
        expect(new Set(list).size).toBe(list.length);
        expect(list.includes('nodelifecycle')).toBe(kwok || asked.includes('nodelifecycle'));
        expect(list.includes('clusterrole-aggregation')).toBe(
          clusterApi || asked.includes('clusterrole-aggregation'),
        );
      }),
    );
  });
});

describe('withConversionWebhook', () => {
  it('gives a CRD of two or more versions a conversion calling the URL with the CA; one version stays as it is', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^v[0-9]beta[0-9]$/), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 65535 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        (names, port, caPem) => {
          const crd = {
            kind: 'CustomResourceDefinition',
            metadata: { name: 'x' },
            spec: { group: 'g', versions: names.map((name) => ({ name, served: true })) },
          };
          const url = `https://127.0.0.1:${port}/convert`;
          const converted = withConversionWebhook(crd, url, caPem) as typeof crd & {
            spec: {
              conversion?: { strategy: string; webhook: { clientConfig: { url: string; caBundle: string } } };
            };
          };
          if (names.length < 2) {
            expect(converted).toBe(crd);
            return;
          }
          expect(converted.spec.versions).toEqual(crd.spec.versions);
          expect(converted.spec.conversion?.strategy).toBe('Webhook');
          expect(converted.spec.conversion?.webhook.clientConfig.url).toBe(url);
          expect(
            Buffer.from(converted.spec.conversion?.webhook.clientConfig.caBundle ?? '', 'base64').toString(),
          ).toBe(caPem);
          expect((crd.spec as { conversion?: unknown }).conversion).toBeUndefined(); // the input is not changed
        },
      ),
    );
  });
});
