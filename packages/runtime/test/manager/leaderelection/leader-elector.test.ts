/**
 * Leader election on the in-memory FakeCluster with a manual clock: who leads, hand-over on
 * release, stepping down at the renew deadline, take-over after expiry, unsafe durations.
 */
import { describe, expect, it } from 'vitest';
import { Lease } from '../../../src/client/builtin.js';
import { sleep } from '../../../src/clock.js';
import { LeaderElector } from '../../../src/manager/leaderelection/leader-elector.js';
import { microTime } from '../../../src/manager/leaderelection/lease-record.js';
import { MetricsRegistry } from '../../../src/manager/metrics-registry.js';
import { FakeCluster } from '../../../src/testing/fake-cluster.js';
import type { ApiTransport } from '../../../src/transport/transport.js';
import { sample } from '../prom-text.js';
import { MICROTIME, NAME, NS, world } from './election-world.js';

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

  it('does not lead on a win that came after the renew deadline: it renews first', async () => {
    const w = world();
    const start = Date.UTC(2026, 0, 1);
    let slowCreates = 1;
    // The first write of the lease takes 12 s to answer (a server just back, under load): past
    // the 10 s renew deadline measured from the attempt's start.
    const slow: ApiTransport = new Proxy(w.cluster, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const answer = await value.apply(target, args);
          if (prop === 'create' && slowCreates-- > 0) await sleep(w.clock, 12_000);
          return answer;
        };
      },
    });
    const a = w.elector('a', { transport: slow });
    a.start();
    await w.clock.advanceAsync(11_000);
    // Holding the lease, not yet leading: no term that would end as it starts.
    expect(w.lease()?.spec?.holderIdentity).toBe('a');
    expect(a.isLeader()).toBe(false);
    expect(w.intervals).toEqual([]);
    await w.clock.advanceAsync(2_000);
    // Renewed at once after the slow win, then leads, and keeps leading.
    expect(w.intervals).toEqual([{ who: 'a', start: start + 12_000 }]);
    await w.clock.advanceAsync(30_000);
    expect(a.isLeader()).toBe(true);
    expect(w.intervals).toHaveLength(1);
    await a.stop();
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
});
