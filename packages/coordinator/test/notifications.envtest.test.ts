/**
 * Notifications of a real rollout: three nodes (simulated agents) rebooted one at a time by a
 * coordinator on envtest; the group's HTTPS webhook receives each node's Scheduled, Granted,
 * Rebooted and Verified in order, while a global webhook that never answers is configured too:
 * the rollout and the planner's rounds go on at full speed, its bodies queue, drop and time out.
 */

import { useControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client, Manager } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import {
  CertificateAuthority,
  eventually,
  startWebhookReceiver,
  type WebhookReceiver,
} from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCoordinator, type CoordinatorHandle, type RebootGroup, RebootGroupType } from '../src/index.js';

import { TestAgent } from './test-agent.js';

const env = useControlPlane('notify');
const RUN = 'capstan.test/run';
const k = capstanProtocol.annotations;
const HANG_TIMEOUT_MS = 60_000;
let admin: Client;
let run: string;
let nodes: string[];
let agents: TestAgent[];
let good: WebhookReceiver;
let hanging: WebhookReceiver;
let handle: CoordinatorHandle;
const stop = new AbortController();
let running: Promise<void>;

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  run = env.namespace;
  nodes = [0, 1, 2].map((i) => `${run}-n${i}`);
  const ca = CertificateAuthority.create('capstan-notify-test-ca');
  good = await startWebhookReceiver({ ca });
  hanging = await startWebhookReceiver({ ca, hang: true });
  await env.plane.installCRDs([new URL('../deploy/crds/rebootgroups.yaml', import.meta.url).pathname]);
  for (const name of nodes) {
    await admin.create(Node, { metadata: { name, labels: { [RUN]: run } } });
    await TestAgent.writeStatus(admin, name, true, 0);
  }
  await admin.create(RebootGroupType, {
    metadata: { name: run, labels: { [RUN]: run } },
    spec: {
      nodeSelector: { matchLabels: { [RUN]: run } },
      maxUnavailable: 1,
      notifications: { webhooks: [{ url: good.url, template: '{{node}} {{event}}' }] },
    },
  } as RebootGroup);
  const manager = Manager.create({
    kubeConfig: env.kubeConfig,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logLevel: 'silent',
  });
  handle = addCoordinator(manager, {
    namespace: env.namespace,
    nodeSelector: `${RUN}=${run}`,
    groupSelector: `${RUN}=${run}`,
    resyncPeriodMs: 1000,
    notifications: {
      webhooks: [{ url: hanging.url, format: 'Slack' }],
      delivery: { trust: { caPem: ca.certPem }, timeoutMs: HANG_TIMEOUT_MS, queueLimit: 4 },
    },
  });
  running = manager.start(stop.signal);
  agents = nodes.map((n) => new TestAgent(admin, n));
  for (const a of agents) a.start();
}, 60_000);

afterAll(async () => {
  await Promise.all((agents ?? []).map((a) => a.stop()));
  stop.abort();
  await running;
  handle?.delivery.stop();
  await good?.close();
  await hanging?.close();
  for (const n of nodes ?? []) await admin?.deleteIfExists(Node, { name: n });
  await admin?.deleteIfExists(RebootGroupType, { name: run });
});

describe('notifications on envtest', () => {
  it('tells the group’s webhook every node’s cycle in order; a hanging webhook slows nothing', async () => {
    const started = Date.now();
    for (const name of nodes)
      await admin.patch(Node, { name }, 'merge', { metadata: { annotations: { [k.rebootNeeded]: 'true' } } });
    const cycle = ['Scheduled', 'Granted', 'Rebooted', 'Verified'];
    await eventually(
      () =>
        nodes.every((n) => good.bodies.filter((b) => b.node === n && b.event === 'Verified').length === 1),
      { what: 'every node verified, told to the webhook', timeoutMs: 60_000 },
    );
    const rolloutMs = Date.now() - started;
    // Far less than one POST's timeout: nobody waited on the hanging endpoint.
    expect(rolloutMs).toBeLessThan(HANG_TIMEOUT_MS / 2);
    for (const n of nodes) {
      const mine = good.bodies.filter((b) => b.node === n);
      expect(mine.map((b) => b.event)).toEqual(cycle);
      expect(mine.map((b) => b.text)).toEqual(cycle.map((e) => `${n} ${e}`));
      expect(mine.every((b) => b.group === run)).toBe(true);
    }
    // One at a time: each node verified before the next was granted.
    const order = good.bodies
      .filter((b) => b.event === 'Granted' || b.event === 'Verified')
      .map((b) => b.event);
    expect(order).toEqual(nodes.flatMap(() => ['Granted', 'Verified']));

    // The hanging endpoint got its first body and holds it; the rest queued or were dropped.
    expect(hanging.hits).toBe(1);
    expect(handle.delivery.pending).toBe(4);
    expect(handle.metrics.notifications.value({ result: 'dropped' })).toBe(nodes.length * cycle.length - 4);
    // A round with the endpoint still hanging takes no longer than a round's API calls.
    const t0 = performance.now();
    await handle.reconciler.round();
    expect(performance.now() - t0).toBeLessThan(2_000);
  }, 90_000);
});
