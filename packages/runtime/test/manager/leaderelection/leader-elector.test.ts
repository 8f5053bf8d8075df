/**
 * Leader election on the in-memory FakeCluster with a manual clock: who leads, hand-over on
 * release, stepping down at the renew deadline, and — over simulated timelines with latency,
 * faults, lease outages and restarts — that two electors never believe they lead at the same time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Lease } from '../../../src/client/builtin.js';
import { apiError } from '../../../src/client/errors.js';
import type { ApiTransport } from '../../../src/client/transport.js';
import {
  LeaderElector,
  type LeaderElectorOptions,
} from '../../../src/manager/leaderelection/leader-elector.js';
import { microTime } from '../../../src/manager/leaderelection/lease-record.js';
import { MetricsRegistry } from '../../../src/manager/metrics/metrics-registry.js';
import { FakeCluster } from '../../../src/testing/fake-cluster.js';
import { ManualClock } from '../../../src/testing/manual-clock.js';
import { sample } from '../prom-text.js';
import { type LeaseOutage, leaseOutage } from './lease-outage.js';

const NS = 'capstan-system';
const NAME = 'widget-operator-lock';
const MICROTIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

interface Interval {
  who: string;
  start: number;
  end?: number;
  lost?: boolean;
}

/** A set of electors on one cluster and clock, recording when each believed it led. */
function world(options: { latencyMs?: number } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const cluster = new FakeCluster({ clock, kinds: [Lease], latencyMs: options.latencyMs ?? 0 });
  const intervals: Interval[] = [];
  const newLeaders = new Map<string, string[]>();
  const signals = new Map<string, AbortSignal[]>();
  const outages = new Map<LeaderElector, LeaseOutage>();

  function elector(
    who: string,
    extra: Partial<LeaderElectorOptions> & { transport?: ApiTransport } = {},
  ): LeaderElector {
    newLeaders.set(who, []);
    signals.set(who, []);
    const outage = leaseOutage(extra.transport ?? cluster);
    const elector = new LeaderElector(outage.transport, {
      name: NAME,
      namespace: NS,
      identity: who,
      clock,
      jitterFactor: 0,
      onStartedLeading: (signal) => {
        intervals.push({ who, start: clock.now() });
        signals.get(who)?.push(signal);
      },
      onStoppedLeading: ({ lost }) => {
        const open = intervals.findLast((i) => i.who === who && i.end === undefined);
        if (!open) throw new Error(`${who} stopped leading without having started`);
        open.end = clock.now();
        open.lost = lost;
      },
      onNewLeader: (id) => newLeaders.get(who)?.push(id),
      ...extra,
    });
    outages.set(elector, outage);
    return elector;
  }

  /** Cuts `e` off from its Lease, so its renewals fail, until {@link restore}. */
  const cut = (e: LeaderElector | undefined) => (e ? outages.get(e)?.cut() : undefined);
  const restore = (e: LeaderElector | undefined) => (e ? outages.get(e)?.restore() : undefined);

  const lease = () => cluster.getObject(Lease, { namespace: NS, name: NAME });

  /** Leading intervals never overlap (touching is allowed only if one ends before the other starts). */
  function assertNoOverlap() {
    const sorted = [...intervals].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1] as Interval;
      const cur = sorted[i] as Interval;
      expect(prev.end, `${prev.who} still leads when ${cur.who} starts at ${cur.start}`).toBeDefined();
      expect(prev.end as number).toBeLessThanOrEqual(cur.start);
    }
  }

  /** Advances in small steps, checking at every step that at most one elector leads. */
  async function run(ms: number, electors: LeaderElector[], step = 100) {
    for (let t = 0; t < ms; t += step) {
      await clock.advanceAsync(Math.min(step, ms - t));
      expect(electors.filter((e) => e.isLeader()).length).toBeLessThanOrEqual(1);
    }
  }

  return {
    clock,
    cluster,
    intervals,
    newLeaders,
    signals,
    elector,
    cut,
    restore,
    lease,
    assertNoOverlap,
    run,
  };
}

describe('LeaderElector', () => {
  it('lets exactly one of two electors lead, and records it in the lease', async () => {
    const w = world();
    const metrics = new MetricsRegistry();
    const a = w.elector('a', { metrics });
    const b = w.elector('b');
    a.start();
    b.start();
    await w.run(10_000, [a, b]);

    expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1);
    const leader = a.isLeader() ? a : b;
    const lease = w.lease();
    expect(lease?.spec?.holderIdentity).toBe(leader.identity);
    expect(lease?.spec?.leaseDurationSeconds).toBe(15);
    expect(lease?.spec?.leaseTransitions).toBe(0);
    expect(lease?.spec?.acquireTime).toMatch(MICROTIME);
    expect(lease?.spec?.renewTime).toMatch(MICROTIME);
    // Renewed every retry period: the last renewal is at most 2 s old; acquired at the start.
    expect(lease?.spec?.acquireTime).toBe('2026-01-01T00:00:00.000000Z');
    expect(lease?.spec?.renewTime).toBe(microTime(Date.UTC(2026, 0, 1, 0, 0, 10)));
    expect(w.intervals).toEqual([{ who: leader.identity, start: Date.UTC(2026, 0, 1) }]);
    expect(w.newLeaders.get('a')).toEqual([leader.identity]);
    expect(w.newLeaders.get('b')).toEqual([leader.identity]);
    expect(a.leader()).toBe(leader.identity);
    expect(b.leader()).toBe(leader.identity);
    const status = sample(await metrics.text(), 'leader_election_master_status', { name: NAME });
    expect(status).toBe(leader === a ? 1 : 0);

    await Promise.all([a.stop(), b.stop()]);
  });

  it('hands over at once when the leader stops and releases the lease', async () => {
    const w = world();
    const metrics = new MetricsRegistry();
    const a = w.elector('a', { metrics });
    a.start();
    await w.clock.advanceAsync(0);
    expect(a.isLeader()).toBe(true);
    const b = w.elector('b');
    b.start();
    await w.run(5_000, [a, b]);
    expect(b.isLeader()).toBe(false);
    expect(sample(await metrics.text(), 'leader_election_master_status', { name: NAME })).toBe(1);

    const stoppedAt = w.clock.now();
    await a.stop();
    expect(a.isLeader()).toBe(false);
    expect(w.signals.get('a')?.[0]?.aborted).toBe(true);
    expect(w.intervals[0]).toEqual({ who: 'a', start: Date.UTC(2026, 0, 1), end: stoppedAt, lost: false });
    expect(w.lease()?.spec).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      leaseTransitions: 0,
    });
    expect(sample(await metrics.text(), 'leader_election_master_status', { name: NAME })).toBe(0);

    // b takes over at its next try (one retry period), not after the 15 s lease duration.
    await w.run(2_000, [a, b]);
    expect(b.isLeader()).toBe(true);
    const bStart = w.intervals[1]?.start as number;
    expect(bStart - stoppedAt).toBeLessThanOrEqual(2_000);
    expect(w.lease()?.spec).toMatchObject({
      holderIdentity: 'b',
      leaseDurationSeconds: 15,
      leaseTransitions: 1,
    });
    expect(w.lease()?.spec?.acquireTime).toBe(microTime(bStart));
    expect(w.newLeaders.get('b')).toEqual(['a', 'b']);
    w.assertNoOverlap();
    await b.stop();
  });

  it('steps down by the renew deadline when renewals stop, before another can acquire', async () => {
    const w = world();
    const a = w.elector('a');
    const b = w.elector('b');
    a.start();
    await w.clock.advanceAsync(0);
    b.start();
    await w.run(6_000, [a, b]);
    expect(a.isLeader()).toBe(true);
    const lastRenewal = Date.parse(w.lease()?.spec?.renewTime as string);

    w.cut(a);
    await w.run(30_000, [a, b]);

    const [first, second] = w.intervals;
    expect(first).toMatchObject({ who: 'a', lost: true });
    // a stepped down no later than the renew deadline after its last successful renewal...
    expect(first?.end as number).toBeLessThanOrEqual(lastRenewal + 10_000);
    // ...while b had to wait for the lease to expire on its own clock: 15 s after it last saw a change.
    expect(second?.who).toBe('b');
    expect(second?.start as number).toBeGreaterThanOrEqual(lastRenewal + 15_000);
    expect(b.isLeader()).toBe(true);
    expect(w.signals.get('a')?.[0]?.aborted).toBe(true);
    expect(w.lease()?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    w.assertNoOverlap();

    // a's campaign is over; once its connection is back, a can campaign again as a standby.
    w.restore(a);
    a.start();
    await w.run(10_000, [a, b]);
    expect(a.isLeader()).toBe(false);
    expect(b.isLeader()).toBe(true);
    await Promise.all([a.stop(), b.stop()]);
    w.assertNoOverlap();
  });

  it('steps down at the deadline even while a renewal request hangs', async () => {
    const w = world();
    let hang = false;
    // The leader's own view of the cluster: requests that never answer once `hang` is set.
    const hanging: ApiTransport = new Proxy(w.cluster, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => (hang ? new Promise(() => {}) : value.apply(target, args));
      },
    });
    const a = w.elector('a', { transport: hanging });
    const b = w.elector('b');
    a.start();
    await w.clock.advanceAsync(0);
    b.start();
    await w.run(4_000, [a, b]);
    const lastRenewal = Date.parse(w.lease()?.spec?.renewTime as string);
    hang = true;
    await w.run(30_000, [a, b]);
    expect(w.intervals[0]).toMatchObject({ who: 'a', lost: true, end: lastRenewal + 10_000 });
    expect(b.isLeader()).toBe(true);
    w.assertNoOverlap();
    await b.stop();
  });

  it('steps down at once on seeing another holder in the lease', async () => {
    const w = world();
    const a = w.elector('a');
    a.start();
    await w.clock.advanceAsync(0);
    expect(a.isLeader()).toBe(true);
    const lease = w.lease();
    if (!lease) throw new Error('no lease');
    await w.cluster.update(Lease, { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await w.clock.advanceAsync(2_000);
    expect(a.isLeader()).toBe(false);
    expect(w.intervals[0]).toMatchObject({ who: 'a', lost: true, end: Date.UTC(2026, 0, 1) + 2_000 });
    expect(w.newLeaders.get('a')).toEqual(['a', 'intruder']);
  });

  it('keeps leading through transient API errors shorter than the renew deadline', async () => {
    const w = world();
    const a = w.elector('a');
    a.start();
    await w.clock.advanceAsync(0);
    w.cluster.failNext('*', 500, 3); // three failed renewals: 6 s < 10 s
    await w.clock.advanceAsync(20_000);
    expect(a.isLeader()).toBe(true);
    expect(w.intervals).toHaveLength(1);
    w.cluster.failNext('update', 409, 10); // conflicts for 20 s: lost
    await w.clock.advanceAsync(20_000);
    expect(a.isLeader()).toBe(false);
    expect(w.intervals[0]?.lost).toBe(true);
  });

  it('takes over a lease left by a crashed leader only after it expires', async () => {
    const w = world();
    const start = Date.UTC(2026, 0, 1);
    w.cluster.seed(Lease, {
      metadata: { name: NAME, namespace: NS },
      spec: {
        holderIdentity: 'crashed',
        leaseDurationSeconds: 15,
        acquireTime: microTime(start - 60_000),
        renewTime: microTime(start - 60_000), // long ago by the record: irrelevant, our clock counts
        leaseTransitions: 4,
      },
    });
    const b = w.elector('b');
    b.start();
    await w.run(14_000, [b]);
    expect(b.isLeader()).toBe(false);
    await w.run(4_000, [b]);
    expect(b.isLeader()).toBe(true);
    expect(w.intervals[0]?.start).toBe(start + 16_000); // first try at or after 15 s, on the 2 s grid
    expect(w.lease()?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 5 });
    await b.stop();
  });

  it('releases nothing it does not hold, and stop() before start is a no-op', async () => {
    const w = world();
    const a = w.elector('a');
    await a.stop();
    const b = w.elector('b');
    a.start();
    await w.clock.advanceAsync(0);
    b.start();
    await w.clock.advanceAsync(0);
    await b.stop();
    expect(w.lease()?.spec?.holderIdentity).toBe('a');
    expect(() => a.run()).toThrow(/already running/);
    await a.stop();
  });

  it('refuses unsafe durations', () => {
    const cluster = new FakeCluster();
    const base = { name: NAME, namespace: NS };
    expect(
      () => new LeaderElector(cluster, { ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }),
    ).toThrow(/renew deadline must be shorter than the lease duration/);
    expect(() => new LeaderElector(cluster, { ...base, retryPeriodMs: 10_000 })).toThrow(/retry period/);
    const e = new LeaderElector(cluster, base);
    expect(e.identity).toMatch(/^.+_[0-9a-f-]{36}$/);
  });

  it('never lets two electors lead at once over random timelines (latency, faults, pauses, restarts)', async () => {
    type Action =
      | { kind: 'advance'; ms: number }
      | { kind: 'pause' | 'resume' | 'stop' | 'start'; who: number }
      | { kind: 'pauseLeader' | 'stopLeader' }
      | { kind: 'fail'; code: 409 | 500 | 503; count: number };
    const who = fc.integer({ min: 0, max: 2 });
    const action: fc.Arbitrary<Action> = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          kind: fc.constant('advance' as const),
          ms: fc.integer({ min: 1, max: 7_000 }),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({ kind: fc.constantFrom('pauseLeader' as const, 'stopLeader' as const) }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constantFrom('pause' as const, 'resume' as const, 'stop' as const, 'start' as const),
          who,
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('fail' as const),
          code: fc.constantFrom(409 as const, 500 as const, 503 as const),
          count: fc.integer({ min: 1, max: 6 }),
        }),
      },
    );

    const stats = { runs: 0, lost: 0, handovers: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { minLength: 10, maxLength: 60 }),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        async (actions, latencyMs, seed) => {
          const w = world({ latencyMs });
          let r = seed;
          const random = () => {
            r = (Math.imul(r, 1103515245) + 12345) >>> 0;
            return r / 2 ** 32;
          };
          const electors = ['e0', 'e1', 'e2'].map((who) => w.elector(who, { jitterFactor: 1.2, random }));
          const running = new Set<number>();
          const start = (i: number) => {
            if (running.has(i)) return;
            running.add(i);
            (electors[i] as LeaderElector).run().then(() => running.delete(i));
          };
          for (let i = 0; i < electors.length; i++) start(i);
          for (const a of actions) {
            switch (a.kind) {
              case 'advance':
                await w.run(a.ms, electors, 250);
                break;
              case 'pause':
                w.cut(electors[a.who]);
                break;
              case 'resume':
                w.restore(electors[a.who]);
                break;
              case 'stop':
                void electors[a.who]?.stop();
                break;
              case 'start':
                start(a.who);
                break;
              case 'pauseLeader':
                w.cut(electors.find((e) => e.isLeader()));
                break;
              case 'stopLeader':
                void electors.find((e) => e.isLeader())?.stop();
                break;
              case 'fail':
                w.cluster.failNext(
                  '*',
                  apiError(a.code, a.code === 409 ? 'Conflict' : 'InternalError', 'x'),
                  a.count,
                );
                break;
            }
          }
          // With everyone healthy again, someone leads within a lease duration plus retries.
          w.cluster.clearFaults();
          for (const e of electors) w.restore(e);
          for (let i = 0; i < electors.length; i++) start(i);
          await w.run(40_000, electors, 250);
          expect(electors.filter((e) => e.isLeader())).toHaveLength(1);
          w.assertNoOverlap();
          stats.runs++;
          stats.lost += w.intervals.filter((i) => i.lost).length;
          stats.handovers += w.intervals.length - 1;
          for (const e of electors) void e.stop();
          await w.clock.advanceAsync(5_000);
          w.assertNoOverlap();
        },
      ),
      { numRuns: 100 },
    );
    // The timelines did exercise losing and handing over leadership.
    expect(stats.lost).toBeGreaterThan(stats.runs / 5);
    expect(stats.handovers).toBeGreaterThan(stats.runs / 2);
  }, 60_000);
});
