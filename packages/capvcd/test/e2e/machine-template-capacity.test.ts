/**
 * VCDMachineTemplate.status.capacity (the Cluster API contract's field the cluster autoscaler reads
 * to scale from zero), under real Cluster API with vcdsim: from the template's sizing policy (read
 * through its cluster's credentials) or the template's own numCPUs and memoryMiB, with a condition
 * saying why when it cannot be known.
 */
import type { ManifestObject } from '@capstan/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VCDMachineTemplateType } from '../../src/index.js';
import { Harness } from './harness.js';
import { INFRA, TEMPLATE } from './objects.js';

const ns = 'e2e-capacity';
let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns, taskLatencyMs: 150 });
  await h.prepareCluster('cap1');
  await h.startProvider();
  await h.plane.createObjects(h.clusterWith('cap1', { endpoint: { host: '192.0.2.10', port: 6443 } }));
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const template = (
  name: string,
  spec: Record<string, unknown>,
  cluster: string | null = 'cap1',
): ManifestObject => ({
  apiVersion: `${INFRA}/v1beta3`,
  kind: 'VCDMachineTemplate',
  metadata: {
    name,
    namespace: ns,
    ...(cluster ? { labels: { 'cluster.x-k8s.io/cluster-name': cluster } } : {}),
  },
  spec: { template: { spec: { ...TEMPLATE, ...spec } } },
});

const settled = (name: string) =>
  h.wait(`VCDMachineTemplate ${name} capacity condition`, async () => {
    const t = await h.client.get(VCDMachineTemplateType, { namespace: ns, name });
    return t.status?.conditions?.find((c) => c.type === 'CapacityKnown') ? t : undefined;
  });

describe('VCDMachineTemplate.status.capacity', () => {
  it('is the sizing policy’s CPU count and memory', async () => {
    await h.plane.createObjects([
      template('small', { sizingPolicy: 'small' }),
      template('large', { sizingPolicy: 'large' }),
    ]);
    expect((await settled('small')).status?.capacity).toEqual({ cpu: '2', memory: '4096Mi' });
    const large = await settled('large');
    expect(large.status?.capacity).toEqual({ cpu: '4', memory: '16384Mi' });
    expect(large.status?.conditions?.find((c) => c.type === 'CapacityKnown')).toMatchObject({
      status: 'True',
      reason: 'Published',
    });
  }, 120_000);

  it('is the template’s own numCPUs and memoryMiB, over a policy’s (Flex VDCs)', async () => {
    await h.plane.createObjects([
      template('own', { numCPUs: 6, coresPerSocket: 3, memoryMiB: 12288 }),
      template('own-over-policy', { sizingPolicy: 'small', numCPUs: 8, memoryMiB: 8192 }),
    ]);
    expect((await settled('own')).status?.capacity).toEqual({ cpu: '6', memory: '12288Mi' });
    expect((await settled('own-over-policy')).status?.capacity).toEqual({ cpu: '8', memory: '8192Mi' });
  }, 120_000);

  it('says why when it cannot be known: no sizing, an unknown policy, no cluster', async () => {
    await h.plane.createObjects([
      template('unsized', {}),
      template('unknown-policy', { sizingPolicy: 'no-such-policy' }),
      template('orphan', { sizingPolicy: 'small' }, null),
    ]);
    const reasons: Record<string, string | undefined> = {};
    for (const name of ['unsized', 'unknown-policy', 'orphan']) {
      const t = await settled(name);
      expect(t.status?.capacity, name).toBeUndefined();
      reasons[name] = t.status?.conditions?.find((c) => c.type === 'CapacityKnown')?.reason;
    }
    expect(reasons).toEqual({
      unsized: 'NoSizing',
      'unknown-policy': 'UnknownSizingPolicy',
      orphan: 'WaitingForCluster',
    });
  }, 120_000);
});
