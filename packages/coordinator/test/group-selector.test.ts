/**
 * `groupSelector`: coordinators that share a cluster each take their own RebootGroups. A group
 * the selector leaves out is not planned, its gates are not read, its status is not written.
 */
import { Manager } from '@capstan/runtime';
import { Event, Lease, Node, Pod } from '@capstan/runtime/client';
import { FakeCluster } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { addCoordinator, type RebootGroup, RebootGroupType } from '../src/index.js';
import { addReadyNode } from './fake-nodes.js';

const NS = 'capstan-system';

function group(name: string, shard: string, pool: string, gates?: RebootGroup['spec']['gates']): RebootGroup {
  return {
    metadata: { name, labels: { shard } },
    spec: { nodeSelector: { matchLabels: { pool } }, maxUnavailable: 1, ...(gates ? { gates } : {}) },
  } as RebootGroup;
}

describe('a coordinator with a group selector', () => {
  it('plans, gates and reports only the groups it selects', async () => {
    const fake = new FakeCluster({ kinds: [Node, RebootGroupType, Lease, Event, Pod] });
    await addReadyNode(fake, 'a1', { pool: 'a' });
    await addReadyNode(fake, 'b1', { pool: 'b' });
    fake.seed(RebootGroupType, group('mine', 'a', 'a'));
    // Another coordinator's group, with a gate this one would have to read pods for.
    fake.seed(RebootGroupType, group('theirs', 'b', 'b', { blockingPods: { matchLabels: { app: 'db' } } }));
    let podReads = 0;
    fake.addFault((r) => {
      if (r.type === Pod) podReads++;
      return undefined;
    });
    const manager = Manager.create({
      transport: fake,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logLevel: 'silent',
    });
    addCoordinator(manager, { namespace: NS, nodeSelector: 'pool=a', groupSelector: 'shard=a' });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      const status = (name: string) => fake.getObject(RebootGroupType, { name })?.status;
      for (let i = 0; i < 300 && !status('mine'); i++) await new Promise((r) => setTimeout(r, 10));
      expect(status('mine')).toMatchObject({ nodes: 1 });
      await new Promise((r) => setTimeout(r, 300));
      expect(status('theirs')).toBeUndefined();
      expect(podReads).toBe(0);
    } finally {
      stop.abort();
      await running;
    }
  });
});
