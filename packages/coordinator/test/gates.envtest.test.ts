/**
 * The Prometheus and conditions gates and the Alertmanager silences on envtest, against a real
 * Prometheus and Alertmanager (built from the Go module proxy on first use): Prometheus scrapes a
 * metric the test sets and fires an alert rule on it. Firing, the gate holds every node; cleared,
 * a node is granted and silenced in Alertmanager; firing again while it settles, it keeps its slot
 * and the next waits; once released its silence is expired. A CEL condition over a custom object
 * opens and closes the same way, and a Prometheus that is down blocks (fail closed).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type MonitoringServer, startAlertmanager, startPrometheus, testCrd } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client, defineResource, type KubeObject, Manager } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCoordinator, type RebootGroup, RebootGroupType } from '../src/index.js';
import { TestAgent } from './test-agent.js';

const env = useControlPlane('gates');
const RUN = 'capstan.test/run';
const OK = capstanProtocol.annotations.rebootOk;
const NEEDED = capstanProtocol.annotations.rebootNeeded;
const Probe = defineResource<KubeObject & { spec?: { health?: string } }>({
  group: 'test.capstan.dev',
  version: 'v1',
  kind: 'Probe',
  plural: 'probes',
  namespaced: false,
});

let admin: Client;
let run: string;
let unhealthy = 1;
let target: Server;
let prometheus: MonitoringServer;
let alertmanager: MonitoringServer;
const stop = new AbortController();
let running: Promise<void> | undefined;
const agents: TestAgent[] = [];

beforeAll(async () => {
  run = env.namespace;
  admin = new Client(new HttpTransport(env.kubeConfig));
  target = createServer((_req, res) => {
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end(`# TYPE capstan_test_unhealthy gauge\ncapstan_test_unhealthy ${unhealthy}\n`);
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  alertmanager = await startAlertmanager();
  prometheus = await startPrometheus({
    scrapeTargets: [`127.0.0.1:${(target.address() as AddressInfo).port}`],
    rules: [{ alert: 'TestUnhealthy', expr: 'capstan_test_unhealthy > 0', for: '0s' }],
    alertmanagerUrl: alertmanager.url,
    intervalMs: 500,
  });
  await env.plane.installCRDs([
    new URL('../deploy/crds/rebootgroups.yaml', import.meta.url).pathname,
    testCrd(Probe, { status: false }),
  ]);
  const group = (pool: string, spec: Partial<RebootGroup['spec']>) =>
    admin.create(RebootGroupType, {
      metadata: { name: `${run}-${pool}`, labels: { [RUN]: run } },
      spec: { nodeSelector: { matchLabels: { [RUN]: run, pool } }, maxUnavailable: 1, ...spec },
    } as RebootGroup);
  await group('prom', {
    settleTime: '4s',
    gates: { prometheus: { url: prometheus.url, alerts: { firingOnly: true }, timeout: '2s' } },
    silences: { url: alertmanager.url, matchers: [{ name: 'node', value: '$NODE' }], maxDuration: '30m' },
  });
  await group('cel', {
    gates: {
      conditions: [
        {
          apiVersion: 'test.capstan.dev/v1',
          kind: 'Probe',
          name: `${run}-ceph`,
          expression: "object.spec.health == 'OK'",
        },
      ],
    },
  });
  await admin.create(Probe, { metadata: { name: `${run}-ceph` }, spec: { health: 'WARN' } });
  for (const [name, pool] of [
    ['p-0', 'prom'],
    ['p-1', 'prom'],
    ['c-0', 'cel'],
  ] as const) {
    await admin.create(Node, { metadata: { name: full(name), labels: { [RUN]: run, pool } } });
    await TestAgent.writeStatus(admin, full(name), true, 0);
    const agent = new TestAgent(admin, full(name));
    agent.start();
    agents.push(agent);
  }
  const manager = Manager.create({
    kubeConfig: env.kubeConfig,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logLevel: 'silent',
  });
  addCoordinator(manager, {
    namespace: env.namespace,
    nodeSelector: `${RUN}=${run}`,
    groupSelector: `${RUN}=${run}`,
    resyncPeriodMs: 500,
  });
  running = manager.start(stop.signal);
}, 45 * 60_000); // a first use builds Prometheus and Alertmanager (see .ci/tools)

afterAll(async () => {
  stop.abort();
  await running;
  await Promise.all(agents.map((a) => a.stop()));
  await Promise.all([prometheus?.stop(), alertmanager?.stop()]);
  target?.close();
  for (const n of ['p-0', 'p-1', 'c-0']) await admin?.deleteIfExists(Node, { name: full(n) });
  for (const g of ['prom', 'cel']) await admin?.deleteIfExists(RebootGroupType, { name: `${run}-${g}` });
});

const full = (n: string) => `${run}-${n}`;
const node = (n: string) => admin.get(Node, { name: full(n) });
const annotation = async (n: string, key: string) => (await node(n)).metadata.annotations?.[key];
const status = async (g: string) => (await admin.get(RebootGroupType, { name: `${run}-${g}` })).status;
const ask = (n: string) =>
  admin.patch(Node, { name: full(n) }, 'merge', { metadata: { annotations: { [NEEDED]: 'true' } } });

async function firing(): Promise<boolean> {
  const answer = (await (await fetch(`${prometheus.url}/api/v1/alerts`)).json()) as {
    data: { alerts: Array<{ state: string }> };
  };
  return answer.data.alerts.some((a) => a.state === 'firing');
}

interface Silence {
  id: string;
  createdBy: string;
  comment: string;
  status: { state: string };
  matchers: Array<{ name: string; value: string }>;
}
async function silencesOf(n: string): Promise<Silence[]> {
  const all = (await (await fetch(`${alertmanager.url}/api/v2/silences`)).json()) as Silence[];
  return all.filter((s) => s.createdBy === 'capstan-coordinator' && s.comment.includes(`node=${full(n)} `));
}

/** Holds for `ms`: sampled every 200 ms. */
async function holds(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    expect(await check(), what).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('health gates against a real Prometheus and Alertmanager', () => {
  it('a firing alert holds grants and a settling node’s slot; each grant is silenced until release', async () => {
    await eventually(firing, { what: 'the alert fires', timeoutMs: 30_000 });
    await ask('p-0');
    await eventually(async () => (await status('prom'))?.queue?.[0]?.reason === 'GateClosed', {
      what: 'p-0 waits GateClosed',
      timeoutMs: 30_000,
    });
    expect((await status('prom'))?.gates?.[0]).toMatchObject({ gate: 'prometheus', state: 'Closed' });
    await holds('p-0 is not granted', 2_000, async () => (await annotation('p-0', OK)) !== 'true');

    unhealthy = 0;
    await eventually(async () => (await annotation('p-0', coordinatorKeys.grantedAt)) !== undefined, {
      what: 'p-0 granted once the alert clears',
      timeoutMs: 30_000,
    });
    await eventually(async () => (await silencesOf('p-0')).some((s) => s.status.state === 'active'), {
      what: 'a silence for p-0',
      timeoutMs: 15_000,
    });
    const [silence] = (await silencesOf('p-0')).filter((s) => s.status.state === 'active');
    expect(silence?.matchers).toEqual([expect.objectContaining({ name: 'node', value: full('p-0') })]);

    // Back and settling: the alert fires again, so p-0 keeps its slot and p-1 waits.
    await eventually(async () => (await annotation('p-0', coordinatorKeys.settlingSince)) !== undefined, {
      what: 'p-0 settling',
      timeoutMs: 30_000,
    });
    unhealthy = 1;
    await ask('p-1');
    await eventually(firing, { what: 'the alert fires again', timeoutMs: 30_000 });
    await holds('p-0 keeps its slot while the alert fires', 6_000, async () => {
      const granted = (await annotation('p-0', coordinatorKeys.grantedAt)) !== undefined;
      return granted && (await annotation('p-1', OK)) !== 'true';
    });

    unhealthy = 0;
    await eventually(async () => (await annotation('p-0', coordinatorKeys.rebootedAt)) !== undefined, {
      what: 'p-0 released once the alert clears',
      timeoutMs: 30_000,
    });
    await eventually(async () => (await silencesOf('p-0')).every((s) => s.status.state === 'expired'), {
      what: 'p-0’s silence expired at its release',
      timeoutMs: 15_000,
    });
    await eventually(async () => (await annotation('p-1', coordinatorKeys.rebootedAt)) !== undefined, {
      what: 'p-1 rebooted next',
      timeoutMs: 60_000,
    });
  }, 240_000);

  it('a CEL condition over a custom object closes and opens a rollout', async () => {
    await ask('c-0');
    await eventually(async () => (await status('cel'))?.queue?.[0]?.reason === 'GateClosed', {
      what: 'c-0 waits GateClosed',
      timeoutMs: 30_000,
    });
    await holds('c-0 is not granted', 2_000, async () => (await annotation('c-0', OK)) !== 'true');
    await admin.patch(Probe, { name: `${run}-ceph` }, 'merge', { spec: { health: 'OK' } });
    await eventually(async () => (await annotation('c-0', coordinatorKeys.rebootedAt)) !== undefined, {
      what: 'c-0 rebooted once the condition holds',
      timeoutMs: 60_000,
    });
    // The object gone: the condition cannot be evaluated, which blocks (fail closed).
    await admin.delete(Probe, { name: `${run}-ceph` });
    await ask('c-0');
    await eventually(async () => (await status('cel'))?.queue?.[0]?.reason === 'GateFailed', {
      what: 'c-0 waits GateFailed',
      timeoutMs: 30_000,
    });
  }, 180_000);

  it('a Prometheus that is down blocks every grant (fail closed)', async () => {
    await prometheus.stop();
    await ask('p-0');
    await eventually(async () => (await status('prom'))?.queue?.[0]?.reason === 'GateFailed', {
      what: 'p-0 waits GateFailed',
      timeoutMs: 30_000,
    });
    expect((await status('prom'))?.gates?.[0]).toMatchObject({ gate: 'prometheus', state: 'Error' });
    await holds('p-0 is not granted', 3_000, async () => (await annotation('p-0', OK)) !== 'true');
  }, 120_000);
});
