import { ControlPlane } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, ConfigMap, HttpTransport, Lease } from '../../src/client/index.js';
import { LeadershipLostError, Manager, type ManagerOptions } from '../../src/manager/index.js';
import { eventually } from '../../src/testing/index.js';
import { GizmoType, gizmoCrd } from '../controller/gizmo.js';
import { leaseOutage } from './leaderelection/lease-outage.js';

const env = useControlPlane('manager');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Span {
  manager: string;
  start: number;
  end?: number;
}

/**
 * A manager whose only controller reconciles one ConfigMap over and over (requeueAfter), taking
 * `workMs` each time, and records every reconcile's span: the leader is always busy, so any overlap
 * of two managers would show.
 */
function busyManager(
  id: string,
  kubeConfig: KubeConfig,
  namespace: string,
  spans: Span[],
  leaderElection: Partial<NonNullable<ManagerOptions['leaderElection']>>,
  workMs = 50,
) {
  // The manager's own view of the server, in which the test can cut off its Lease requests.
  const outage = leaseOutage(new HttpTransport(kubeConfig));
  const manager = Manager.create({
    transport: outage.transport,
    namespace,
    logLevel: 'silent',
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    leaderElection: { id: 'busy', namespace, identity: id, ...leaderElection },
  });
  manager
    .controllerBuilder()
    .for(ConfigMap)
    .build(async () => {
      const span: Span = { manager: id, start: Date.now() };
      spans.push(span);
      await sleep(workMs);
      span.end = Date.now();
      return { requeueAfter: 20 };
    });
  const stop = new AbortController();
  const done = manager.start(stop.signal).then(
    () => 'stopped' as const,
    (err: unknown) => err,
  );
  return { id, manager, stop, done, outage };
}

function overlaps(spans: Span[]): Array<[Span, Span]> {
  const found: Array<[Span, Span]> = [];
  for (const a of spans) {
    for (const b of spans) {
      if (a.manager >= b.manager) continue;
      const aEnd = a.end ?? Number.POSITIVE_INFINITY;
      const bEnd = b.end ?? Number.POSITIVE_INFINITY;
      if (a.start < bEnd && b.start < aEnd) found.push([a, b]);
    }
  }
  return found;
}

describe('leader election between two managers', () => {
  it('lets exactly one lead; a graceful stop completes its reconcile and hands over at once', async () => {
    const client = new Client(new HttpTransport(env.kubeConfig));
    await client.create(ConfigMap, { metadata: { name: 'work', namespace: env.namespace } });
    const spans: Span[] = [];
    // Default lease timings (15 s / 10 s); a quick retry so the standby notices the release fast.
    const timing = { retryPeriodMs: 300 };
    const a = busyManager('a', env.kubeConfig, env.namespace, spans, timing, 800);
    await eventually(() => spans.length > 0, { what: 'first reconcile', timeoutMs: 20_000 });
    const b = busyManager('b', env.kubeConfig, env.namespace, spans, timing, 800);
    const leader = spans[0]?.manager === 'a' ? a : b;
    const standby = leader === a ? b : a;
    await sleep(1_500);
    expect(leader.manager.elector?.isLeader()).toBe(true);
    expect(standby.manager.elector?.isLeader()).toBe(false);
    expect(new Set(spans.map((s) => s.manager))).toEqual(new Set([leader.id]));

    // "SIGTERM" while a reconcile runs: the manager's signal aborts mid-reconcile.
    await eventually(() => spans.at(-1)?.end === undefined, {
      what: 'a reconcile in flight',
      timeoutMs: 5_000,
    });
    const inFlight = spans.at(-1) as Span;
    const stoppedAt = Date.now();
    leader.stop.abort();
    expect(await leader.done).toBe('stopped');
    expect(inFlight.end).toBeGreaterThan(stoppedAt); // it was allowed to finish
    const lease = await client.get(Lease, { namespace: env.namespace, name: 'busy' }, { direct: true });
    // Released (or already taken by the standby), never left to expire.
    expect(lease.spec?.holderIdentity === '' || lease.spec?.holderIdentity === standby.id).toBe(true);

    await eventually(() => spans.some((s) => s.manager === standby.id), {
      what: 'standby takes over',
      timeoutMs: 5_000,
    });
    const takeoverMs =
      (spans.find((s) => s.manager === standby.id) as Span).start - Date.now() + (Date.now() - stoppedAt);
    expect(takeoverMs).toBeLessThan(5_000); // the lease is 15 s: this was the release, not expiry
    expect(overlaps(spans)).toEqual([]);
    standby.stop.abort();
    expect(await standby.done).toBe('stopped');
  });

  it('with its lease requests cut off, the leader steps down before the standby can lead: never both at once', async () => {
    const client = new Client(new HttpTransport(env.kubeConfig));
    await client
      .create(ConfigMap, { metadata: { name: 'paused', namespace: env.namespace } })
      .catch(() => undefined);
    const spans: Span[] = [];
    const timing = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 250, id: 'paused-lease' };
    const a = busyManager('a', env.kubeConfig, env.namespace, spans, timing);
    await eventually(() => spans.length > 0, { what: 'first reconcile', timeoutMs: 20_000 });
    const b = busyManager('b', env.kubeConfig, env.namespace, spans, timing);
    await sleep(1_000);
    a.outage.cut();
    // a loses the lease by its renew deadline and exits (the default); b takes over after expiry.
    expect(await a.done).toBeInstanceOf(LeadershipLostError);
    await eventually(() => spans.some((s) => s.manager === 'b'), { what: 'b leads' });
    await sleep(500);
    expect(overlaps(spans)).toEqual([]);
    b.stop.abort();
    await b.done;
  });
});

describe('metrics and probes', () => {
  it('counts known reconciles and failures, and /readyz is 503 until the caches sync', async () => {
    const client = new Client(new HttpTransport(env.kubeConfig));
    const manager = Manager.create({
      kubeConfig: env.kubeConfig,
      namespace: env.namespace,
      logLevel: 'silent',
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
    });
    let failures = 0;
    manager
      .controllerBuilder()
      .named('gizmos')
      .for(GizmoType)
      .build(async (request) => {
        if (request.name === 'flaky' && failures < 3) {
          failures++;
          throw new Error('not yet');
        }
        return undefined;
      });
    const stop = new AbortController();
    // The Gizmo CRD is not installed yet: the informer cannot list, so the cache cannot sync.
    await env.plane.installCRDs([]).catch(() => undefined);
    const done = manager.start(stop.signal);
    await eventually(() => manager.listening.probes !== undefined, {
      what: 'probes listening',
      timeoutMs: 5_000,
    });
    const { probes, metrics } = manager.listening;
    const readyz = async () => (await fetch(`http://127.0.0.1:${probes}/readyz`)).status;
    const crdMissing = await client
      .get(GizmoType, { namespace: env.namespace, name: 'x' }, { direct: true })
      .catch((e) => e);
    if ((crdMissing as { code?: number }).code === 404 && !(await isCrdInstalled(client))) {
      expect(await readyz()).toBe(503);
    }
    expect((await fetch(`http://127.0.0.1:${probes}/healthz`)).status).toBe(200);
    await env.plane.installCRDs([gizmoCrd]);
    await eventually(() => manager.cache.hasSynced(), { what: 'cache sync', timeoutMs: 30_000 });
    expect(await readyz()).toBe(200);

    await client.create(GizmoType, {
      metadata: { name: 'steady', namespace: env.namespace },
      spec: { size: 1 },
    });
    await client.create(GizmoType, {
      metadata: { name: 'flaky', namespace: env.namespace },
      spec: { size: 1 },
    });
    const scrape = async () => (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
    const value = (text: string, series: string) =>
      Number(text.match(new RegExp(`^${series} (\\S+)`, 'm'))?.[1] ?? 'NaN');
    await eventually(() => failures === 3, { what: 'three failures' });
    let text = '';
    await eventually(
      () => value(text, 'controller_runtime_reconcile_total\\{controller="gizmos",result="success"\\}') >= 2,
      { what: 'two successes' },
    ).catch(async () => {
      text = await scrape();
    });
    for (
      let i = 0;
      i < 50 &&
      !(value(text, 'controller_runtime_reconcile_total\\{controller="gizmos",result="success"\\}') >= 2);
      i++
    ) {
      text = await scrape();
      await sleep(100);
    }
    expect(value(text, 'controller_runtime_reconcile_total\\{controller="gizmos",result="success"\\}')).toBe(
      2,
    );
    expect(value(text, 'controller_runtime_reconcile_total\\{controller="gizmos",result="error"\\}')).toBe(3);
    expect(value(text, 'controller_runtime_reconcile_errors_total\\{controller="gizmos"\\}')).toBe(3);
    expect(value(text, 'workqueue_retries_total\\{[^}]*name="gizmos"[^}]*\\}')).toBe(3);
    expect(value(text, 'controller_runtime_max_concurrent_reconciles\\{controller="gizmos"\\}')).toBe(1);
    expect(text).toMatch(/^rest_client_requests_total\{[^}]*code="200"[^}]*method="GET"[^}]*\} [1-9]/m);
    stop.abort();
    await done;
  });
});

async function isCrdInstalled(client: Client): Promise<boolean> {
  return client
    .list(GizmoType, { namespace: 'default', direct: true })
    .then(() => true)
    .catch(() => false);
}

describe('an apiserver restart', () => {
  let plane: ControlPlane | undefined;
  afterAll(async () => {
    await plane?.stop();
  });

  it('never lets two managers reconcile at once, and one leads again afterwards', async () => {
    plane = await ControlPlane.start();
    const client = new Client(new HttpTransport(plane.kubeConfig));
    await client.create(ConfigMap, { metadata: { name: 'work', namespace: 'default' } });
    const spans: Span[] = [];
    const timing = {
      leaseDurationMs: 3_000,
      renewDeadlineMs: 2_000,
      retryPeriodMs: 250,
      onLoss: 'standby' as const,
    };
    const a = busyManager('a', plane.kubeConfig, 'default', spans, timing);
    await eventually(() => spans.length > 0, { what: 'first reconcile', timeoutMs: 20_000 });
    const b = busyManager('b', plane.kubeConfig, 'default', spans, timing);
    await sleep(500);
    await plane.restartApiServer();
    await sleep(500);
    await plane.restartApiServer();
    const after = Date.now();
    await eventually(() => spans.some((s) => s.start > after + 3_000), {
      what: 'reconciling again after the restarts',
      timeoutMs: 30_000,
    });
    expect(overlaps(spans)).toEqual([]);
    expect([a, b].filter((m) => m.manager.elector?.isLeader())).toHaveLength(1);
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.done, b.done]);
    // Its own control plane and two apiserver restarts: on a busy 2-core machine these alone
    // took most of the default 60 s.
  }, 180_000);
});
