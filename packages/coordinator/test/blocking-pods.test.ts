/**
 * The blockingPods gate through the reconciler: the pods its selector matches are read each round
 * (finished pods block nothing), a node running one waits `BlockingPods` while the next is
 * granted, it is granted once the pod is gone, and a list that fails blocks the group
 * (`GateFailed`, fail closed).
 */
import { ApiError, Client } from '@capstan/runtime';
import { Lease, Node, Pod } from '@capstan/runtime/client';
import { FakeCluster, ManualClock } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { CoordinatorReconciler, type RebootGroup, RebootGroupType } from '../src/index.js';
import { addAskingNode } from './fake-nodes.js';

const START = Date.UTC(2025, 0, 6, 12, 0, 0);
const OK = 'reboot.capstan.dev/reboot-ok';

describe('the blockingPods gate through the reconciler', () => {
  it('holds a node while a matching pod runs on it, and fails closed when pods cannot be listed', async () => {
    const clock = new ManualClock(START);
    const fake = new FakeCluster({ clock, kinds: [Node, RebootGroupType, Lease, Pod] });
    fake.seed(RebootGroupType, {
      metadata: { name: 'default' },
      spec: { maxUnavailable: 2, gates: { blockingPods: { matchLabels: { app: 'batch' } } } },
    } as RebootGroup);
    await addAskingNode(fake, 'busy', {}, START - 2000);
    await addAskingNode(fake, 'free', {}, START - 1000);
    const pod = async (name: string, node: string, phase: string, app = 'batch') => {
      fake.seed(Pod, {
        metadata: { name, namespace: 'jobs', labels: { app } },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'x' }] },
      } as Pod);
      await fake.patch(
        Pod,
        { namespace: 'jobs', name },
        'merge',
        { status: { phase } },
        { subresource: 'status' },
      );
    };
    await pod('batch-1', 'busy', 'Running');
    await pod('batch-0', 'free', 'Succeeded'); // finished: blocks nothing
    await pod('web-1', 'free', 'Running', 'web'); // not matched
    const c = new CoordinatorReconciler({ namespace: 'capstan-system' }, { client: new Client(fake), clock });
    const ok = (name: string) => fake.getObject(Node, { name })?.metadata.annotations?.[OK];
    const queue = () => (fake.getObject(RebootGroupType, { name: 'default' }) as RebootGroup).status?.queue;

    await c.round();
    expect(ok('busy')).toBeUndefined();
    expect(ok('free')).toBe('true');
    expect(queue()).toEqual([
      expect.objectContaining({
        node: 'busy',
        reason: 'BlockingPods',
        message: expect.stringContaining('jobs/batch-1'),
      }),
    ]);

    // The API refuses to list pods: the gate is closed for every node.
    let failing = true;
    fake.addFault((r) =>
      failing && r.verb === 'list' && r.type === Pod
        ? new ApiError({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            code: 503,
            reason: 'ServiceUnavailable',
            message: 'etcd is down',
          })
        : undefined,
    );
    await fake.delete(Pod, { namespace: 'jobs', name: 'batch-1' });
    await c.round();
    expect(ok('busy')).toBeUndefined();
    expect(queue()).toEqual([
      expect.objectContaining({
        node: 'busy',
        reason: 'GateFailed',
        message: expect.stringContaining('etcd is down'),
      }),
    ]);

    failing = false;
    await c.round();
    expect(ok('busy')).toBe('true');
  });
});
