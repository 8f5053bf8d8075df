/**
 * Leader election against a real kube-apiserver (the run's shared envtest control plane), on the
 * wall clock with short durations: the server validates our Lease (MicroTime fields included) and
 * enforces resourceVersion preconditions for real.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Lease } from '../../../src/client/builtin.js';
import { LeaderElector } from '../../../src/manager/leaderelection/leader-elector.js';
import { MetricsRegistry } from '../../../src/manager/metrics-registry.js';
import { eventually } from '../../../src/testing/index.js';
import { HttpTransport } from '../../../src/transport/http-transport.js';
import { sample } from '../prom-text.js';
import { type LeaseOutage, leaseOutage } from './lease-outage.js';

const env = useControlPlane('leader');
const MICROTIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

let transport: HttpTransport;
const metrics = new MetricsRegistry();
beforeAll(() => {
  transport = new HttpTransport(env.kubeConfig, { onRequest: (m) => metrics.onRestRequest(m) });
  return () => transport.close();
});

interface Interval {
  who: string;
  start: number;
  end?: number;
  lost?: boolean;
}

let electors: LeaderElector[] = [];
afterEach(async () => {
  await Promise.all(electors.map((e) => e.stop()));
  electors = [];
});

function setup(lease: string) {
  const intervals: Interval[] = [];
  const outages = new Map<LeaderElector, LeaseOutage>();
  const elector = (who: string) => {
    const outage = leaseOutage(transport);
    const e = new LeaderElector(outage.transport, {
      name: lease,
      namespace: env.namespace,
      identity: who,
      leaseDurationMs: 4_000,
      renewDeadlineMs: 3_000,
      retryPeriodMs: 500,
      metrics,
      onStartedLeading: () => intervals.push({ who, start: Date.now() }),
      onStoppedLeading: ({ lost }) => {
        const open = intervals.findLast((i) => i.who === who && i.end === undefined);
        if (open) Object.assign(open, { end: Date.now(), lost });
      },
    });
    electors.push(e);
    outages.set(e, outage);
    return e;
  };
  /** Cuts `e` off from its Lease, so its renewals fail. */
  const cut = (e: LeaderElector) => outages.get(e)?.cut();
  const read = () => transport.get(Lease, { namespace: env.namespace, name: lease });
  const assertNoOverlap = () => {
    const sorted = [...intervals].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      expect((sorted[i - 1] as Interval).end).toBeDefined();
      expect((sorted[i - 1] as Interval).end as number).toBeLessThanOrEqual((sorted[i] as Interval).start);
    }
  };
  return { intervals, elector, cut, read, assertNoOverlap };
}

describe('LeaderElector on a real API server', () => {
  it('elects exactly one of two, writes a valid Lease and hands over at once on stop', async () => {
    const s = setup('handover');
    const a = s.elector('replica-a');
    const b = s.elector('replica-b');
    a.start();
    b.start();
    await eventually(() => a.isLeader() || b.isLeader(), { timeoutMs: 20_000 });
    // Give the standby a few retry periods to (wrongly) acquire too.
    await new Promise((r) => setTimeout(r, 1_500));
    expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1);
    const [leader, standby] = a.isLeader() ? [a, b] : [b, a];

    const lease = await s.read();
    expect(lease.spec).toMatchObject({
      holderIdentity: leader.identity,
      leaseDurationSeconds: 4,
      leaseTransitions: 0,
    });
    expect(lease.spec?.acquireTime).toMatch(MICROTIME);
    expect(lease.spec?.renewTime).toMatch(MICROTIME);
    expect(Date.now() - Date.parse(lease.spec?.renewTime as string)).toBeLessThan(1_500);
    expect(sample(await metrics.text(), 'leader_election_master_status', { name: 'handover' })).toBe(1);

    const stoppedAt = Date.now();
    await leader.stop();
    expect((await s.read()).spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    const tookOver = await eventually(() => standby.isLeader() && Date.now(), { timeoutMs: 20_000 });
    // At the standby's next try (≤ 500 ms × 2.2 with jitter), not after the 4 s lease duration.
    expect(tookOver - stoppedAt).toBeLessThan(2_500);
    expect((await s.read()).spec).toMatchObject({ holderIdentity: standby.identity, leaseTransitions: 1 });
    s.assertNoOverlap();

    const host = transport.host;
    const text = await metrics.text();
    expect(sample(text, 'rest_client_requests_total', { code: '200', method: 'GET', host })).toBeGreaterThan(
      0,
    );
    expect(sample(text, 'rest_client_requests_total', { code: '200', method: 'PUT', host })).toBeGreaterThan(
      0,
    );
  });

  it('a leader whose renewals stop steps down before the standby takes over', async () => {
    const s = setup('paused');
    const a = s.elector('replica-a');
    a.start();
    await eventually(() => a.isLeader(), { timeoutMs: 20_000 });
    const b = s.elector('replica-b');
    b.start();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(b.isLeader()).toBe(false);

    s.cut(a);
    const pausedAt = Date.now();
    await eventually(() => b.isLeader(), { timeoutMs: 15_000 });
    const [first, second] = s.intervals;
    expect(first).toMatchObject({ who: 'replica-a', lost: true });
    // a gave up within its renew deadline (plus a retry period); b waited for the 4 s lease to expire.
    expect((first?.end as number) - pausedAt).toBeLessThanOrEqual(3_000 + 600);
    expect((second?.start as number) - pausedAt).toBeGreaterThanOrEqual(4_000 - 600);
    s.assertNoOverlap();
    expect((await s.read()).spec).toMatchObject({ holderIdentity: 'replica-b', leaseTransitions: 1 });
  });

  it('resolves races on the real server: of many electors starting at once, one leads', async () => {
    const s = setup('race');
    const all = ['r1', 'r2', 'r3', 'r4'].map((who) => s.elector(who));
    for (const e of all) e.start();
    await eventually(() => all.some((e) => e.isLeader()), { timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 1_500));
    const leaders = all.filter((e) => e.isLeader());
    expect(leaders).toHaveLength(1);
    expect((await s.read()).spec?.holderIdentity).toBe(leaders[0]?.identity);
    expect(s.intervals).toHaveLength(1);
  });
});
