/**
 * PDB-aware grants on a whole simulated cluster: kwok nodes, the scheduler, and the
 * kube-controller-manager's disruption controller computing the PodDisruptionBudget's status; the
 * coordinator runs as its service account under deploy/'s RBAC and admission policy. The node
 * that asked first runs the only replica of a budget that allows no disruption: the next node is
 * granted first, the first waits `DrainBlocked` naming the budget, and is granted once the
 * budget allows a disruption.
 */
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client, Manager } from '@capstan/runtime';
import { Deployment, HttpTransport, Node, Pod, PodDisruptionBudget } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCoordinator, type RebootGroup, RebootGroupType } from '../src/index.js';
import { coordinatorIdentity } from './policy-kit.js';

const env = useOwnControlPlane({ controllerManager: true, scheduler: true, kwok: true }, 'pdb-aware');
const RUN = 'capstan.test/run';
const k = capstanProtocol.annotations;
let admin: Client;
let cleanUp: (() => Promise<void>) | undefined;
const stop = new AbortController();
let running: Promise<void>;

const held = 'pdb-held-0';
const free = 'pdb-free-0';

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  const run = env.namespace;
  await env.plane.addNodes([
    { name: held, labels: { [RUN]: run, pool: `${run}-held` } },
    { name: free, labels: { [RUN]: run, pool: `${run}-free` } },
  ]);
  await env.plane.installCRDs([new URL('../deploy/crds/rebootgroups.yaml', import.meta.url).pathname]);
  const identity = await coordinatorIdentity(env, free);
  cleanUp = identity.cleanUp;
  const manager = Manager.create({
    kubeConfig: identity.kubeConfig,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logLevel: 'silent',
  });
  addCoordinator(manager, {
    namespace: env.namespace,
    nodeSelector: `${RUN}=${run}`,
    groupSelector: `${RUN}=${run}`,
    resyncPeriodMs: 1000,
  });
  running = manager.start(stop.signal);
}, 120_000);

afterAll(async () => {
  stop.abort();
  await running;
  await cleanUp?.();
});

/** One replica of `app` on the nodes of `pool`. */
async function deploy(app: string, pool: string): Promise<void> {
  await admin.create(Deployment, {
    metadata: { name: app, namespace: env.namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: {
          nodeSelector: { pool },
          terminationGracePeriodSeconds: 0,
          containers: [{ name: 'c', image: `x.invalid/${app}:1` }],
        },
      },
    },
  });
}

const annotations = async (name: string) => (await admin.get(Node, { name })).metadata.annotations ?? {};

describe('PDB-aware grants', () => {
  it('grants first the node whose drain can go through, and names the budget holding the other', async () => {
    const ns = env.namespace;
    await deploy('db', `${ns}-held`);
    await deploy('web', `${ns}-free`);
    await admin.create(PodDisruptionBudget, {
      metadata: { name: 'db', namespace: ns },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
    });
    await eventually(
      async () => {
        const { items } = await admin.list(Pod, { namespace: ns });
        const ready = items.filter((p) =>
          p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        const pdb = await admin.get(PodDisruptionBudget, { namespace: ns, name: 'db' });
        return ready.length === 2 && pdb.status?.currentHealthy === 1 && pdb.status.disruptionsAllowed === 0;
      },
      { what: 'both pods running and the budget allowing no disruption', timeoutMs: 60_000 },
    );
    await admin.create(RebootGroupType, {
      metadata: { name: ns, labels: { [RUN]: ns } },
      spec: {
        nodeSelector: { matchLabels: { [RUN]: ns } },
        maxUnavailable: 1,
        pdbAware: true,
      },
    } as RebootGroup);
    // The held node asks first.
    await admin.patch(Node, { name: held }, 'merge', {
      metadata: { annotations: { [k.rebootNeeded]: 'true' } },
    });
    await eventually(async () => (await annotations(held))[coordinatorKeys.requestedAt] !== undefined, {
      what: 'the held node queued',
    });
    await admin.patch(Node, { name: free }, 'merge', {
      metadata: { annotations: { [k.rebootNeeded]: 'true' } },
    });

    await eventually(async () => (await annotations(free))[k.rebootOk] === 'true', {
      what: 'the free node granted first',
      timeoutMs: 30_000,
    });
    expect((await annotations(held))[k.rebootOk]).toBeUndefined();
    const entry = await eventually(
      async () =>
        ((await admin.get(RebootGroupType, { name: ns })) as RebootGroup).status?.queue?.find(
          (q) => q.node === held && q.reason === 'DrainBlocked',
        ),
      { what: 'the held node waiting DrainBlocked', timeoutMs: 20_000 },
    );
    expect(entry.message).toContain(`PodDisruptionBudget ${ns}/db allows 0`);

    // The budget allows a disruption now and the group a second node: the held node goes.
    await admin.patch(PodDisruptionBudget, { namespace: ns, name: 'db' }, 'merge', {
      spec: { minAvailable: 0 },
    });
    await admin.patch(RebootGroupType, { name: ns }, 'merge', { spec: { maxUnavailable: 2 } });
    await eventually(async () => (await annotations(held))[k.rebootOk] === 'true', {
      what: 'the held node granted once the budget allows',
      timeoutMs: 30_000,
    });
  }, 180_000);
});
