/**
 * A Zincati-style FleetLock client on a whole simulated cluster (envtest with kube-scheduler,
 * kwok nodes and the workload controllers), the coordinator running as its service account under
 * deploy/'s RBAC and admission policy. Before its grant the client's node is cordoned and drained
 * by the coordinator (evictions honour the PodDisruptionBudget, a DaemonSet pod stays), the
 * scheduler places the evicted pods elsewhere; after the reboot, steady-state uncordons it.
 * Before the coordinator drained, the client was granted with its pods still on the node.
 */
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client, Manager } from '@capstan/runtime';
import {
  DaemonSet,
  Deployment,
  HttpTransport,
  Node,
  Pod,
  PodDisruptionBudget,
} from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCoordinator, FLEETLOCK_CORDONED_KEY, FLEETLOCK_HOLDER_KEY } from '../src/index.js';
import { coordinatorIdentity } from './policy-kit.js';

const env = useOwnControlPlane({ controllerManager: true, scheduler: true, kwok: true }, 'fl-drain');
const RUN = 'capstan.test/run';
const MACHINE = '0f0e0d0c0b0a09080706050403020100';
let admin: Client;
let cleanUp: (() => Promise<void>) | undefined;
let manager: Manager;
const stop = new AbortController();
let running: Promise<void>;
let port: number;

const zincati = 'zincati-0';
const other = 'other-0';

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  const run = env.namespace;
  // `other` stays cordoned until the pods are placed, so they all land on the client's node.
  await env.plane.addNodes([
    { name: zincati, machineID: MACHINE, labels: { [RUN]: run, pool: run } },
    { name: other, labels: { [RUN]: run, pool: run }, unschedulable: true },
  ]);
  await env.plane.installCRDs([new URL('../deploy/crds/rebootgroups.yaml', import.meta.url).pathname]);
  const identity = await coordinatorIdentity(env, other);
  cleanUp = identity.cleanUp;
  manager = Manager.create({
    kubeConfig: identity.kubeConfig,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logLevel: 'silent',
  });
  const handle = addCoordinator(manager, {
    namespace: env.namespace,
    nodeSelector: `${RUN}=${run}`,
    resyncPeriodMs: 2000,
    fleetlock: { bindAddress: '127.0.0.1:0', waitMs: 2000 },
  });
  running = manager.start(stop.signal);
  port = (await handle.fleetlock?.ready) as number;
}, 120_000);

afterAll(async () => {
  stop.abort();
  await running;
  await cleanUp?.();
});

const app = { app: 'web' };

async function workload(pool: string): Promise<void> {
  const ns = env.namespace;
  const podSpec = { nodeSelector: { pool }, terminationGracePeriodSeconds: 0 };
  await admin.create(Deployment, {
    metadata: { name: 'web', namespace: ns },
    spec: {
      replicas: 2,
      selector: { matchLabels: app },
      template: {
        metadata: { labels: app },
        spec: { ...podSpec, containers: [{ name: 'c', image: 'x.invalid/web:1' }] },
      },
    },
  });
  await admin.create(PodDisruptionBudget, {
    metadata: { name: 'web', namespace: ns },
    spec: { minAvailable: 1, selector: { matchLabels: app } },
  });
  await admin.create(DaemonSet, {
    metadata: { name: 'node-agent', namespace: ns },
    spec: {
      selector: { matchLabels: { app: 'node-agent' } },
      template: {
        metadata: { labels: { app: 'node-agent' } },
        spec: { ...podSpec, containers: [{ name: 'c', image: 'x.invalid/ds:1' }] },
      },
    },
  });
}

/** The pods of the namespace by node, those of `web` that run (Ready) only. */
async function podsOn(node: string): Promise<{ web: number; daemon: number }> {
  const { items } = await admin.list(Pod, { namespace: env.namespace });
  const here = items.filter((p) => p.spec?.nodeName === node && !p.metadata.deletionTimestamp);
  const ready = (p: Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  return {
    web: here.filter((p) => p.metadata.labels?.app === 'web' && ready(p)).length,
    daemon: here.filter((p) => p.metadata.labels?.app === 'node-agent').length,
  };
}

async function fleetlock(endpoint: 'pre-reboot' | 'steady-state'): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'fleet-lock-protocol': 'true' },
    body: JSON.stringify({ client_params: { id: MACHINE, group: 'default' } }),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('a FleetLock client drained by the coordinator', () => {
  it('is cordoned and drained before its grant, and uncordoned at steady-state', async () => {
    await workload(env.namespace);
    await eventually(async () => ((await podsOn(zincati)).web === 2 ? true : undefined), {
      what: 'two web pods running on the client’s node',
      timeoutMs: 60_000,
    });
    // The budget's status caught up with both pods (evictions read it).
    await eventually(
      async () => {
        const pdb = await admin.get(PodDisruptionBudget, { namespace: env.namespace, name: 'web' });
        return pdb.status?.currentHealthy === 2 && pdb.status.disruptionsAllowed === 1;
      },
      { what: 'the PodDisruptionBudget allowing one disruption', timeoutMs: 30_000 },
    );
    // `other` is schedulable (a cordoned node would count against the budget) but tainted: the
    // first evicted pod's replacement cannot run yet, so the budget refuses the second eviction.
    const hold = { key: 'capstan.test/hold', value: 'true', effect: 'NoSchedule' };
    await admin.patch(Node, { name: other }, 'merge', { spec: { unschedulable: false, taints: [hold] } });
    const blocked = /capstan_fleetlock_evictions_total\{result="blocked"\} [1-9]/;
    // Zincati asks until it holds the lock (each refusal is 409 and a retry).
    let status = 0;
    for (let i = 0; i < 40 && !blocked.test(await manager.metrics.registry.metrics()); i++)
      status = await fleetlock('pre-reboot');
    expect(status).toBe(409);
    expect((await podsOn(zincati)).web).toBe(1);
    await admin.patch(Node, { name: other }, 'merge', { spec: { taints: null } });
    for (let i = 0; i < 40 && status !== 200; i++) status = await fleetlock('pre-reboot');
    expect(status).toBe(200);

    const granted = await admin.get(Node, { name: zincati });
    expect(granted.spec?.unschedulable).toBe(true);
    expect(granted.metadata.annotations?.[FLEETLOCK_CORDONED_KEY]).toBe('true');
    expect(granted.metadata.annotations?.[capstanProtocol.annotations.rebootOk]).toBe('true');
    expect(await podsOn(zincati)).toEqual({ web: 0, daemon: 1 }); // drained, the DaemonSet pod stays
    await eventually(async () => ((await podsOn(other)).web === 2 ? true : undefined), {
      what: 'the evicted pods running on the other node',
      timeoutMs: 30_000,
    });

    await env.plane.rebootNode(zincati);
    expect(await fleetlock('steady-state')).toBe(200);
    const back = await eventually(
      async () => {
        const n = await admin.get(Node, { name: zincati });
        return n.metadata.annotations?.[coordinatorKeys.rebootedAt] !== undefined ? n : undefined;
      },
      { what: 'the reboot completed', timeoutMs: 30_000 },
    );
    expect(back.spec?.unschedulable).toBeFalsy();
    expect(back.metadata.annotations?.[FLEETLOCK_CORDONED_KEY]).toBeUndefined();
    expect(back.metadata.annotations?.[FLEETLOCK_HOLDER_KEY]).toBeUndefined();
    const text = await manager.metrics.registry.metrics();
    expect(text).toMatch(/capstan_fleetlock_evictions_total\{result="evicted"\} 2/);
    expect(text).toMatch(blocked);
    expect(text).not.toMatch(/rest_client_requests_total\{[^}]*code="403"/);
  }, 180_000);
});
