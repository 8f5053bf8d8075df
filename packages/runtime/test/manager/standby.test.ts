/**
 * A manager with `onLoss: 'standby'` that loses its lease while a reconcile is in flight, on the
 * in-memory cluster and a manual clock: it campaigns again only once that reconcile has returned,
 * then leads and reconciles again. It does not fail, and never runs two reconciles at once.
 */
import { describe, expect, it } from 'vitest';
import { ConfigMap, Lease } from '../../src/client/builtin.js';
import { Manager } from '../../src/manager/manager.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { leaseOutage } from './leaderelection/lease-outage.js';

describe('a standby manager', () => {
  it('starts a new term only after the last term has drained, and keeps running', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const cluster = new FakeCluster({ clock, kinds: [ConfigMap, Lease] });
    cluster.seed(ConfigMap, { metadata: { name: 'work', namespace: 'default' } });
    const outage = leaseOutage(cluster);
    const manager = Manager.create({
      transport: outage.transport,
      clock,
      namespace: 'default',
      logLevel: 'silent',
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      leaderElection: {
        id: 'busy',
        namespace: 'default',
        identity: 'a',
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 250,
        onLoss: 'standby',
      },
    });
    const held: Array<() => void> = [];
    let hold = true;
    let reconciles = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    manager
      .controllerBuilder()
      .for(ConfigMap)
      .build(async () => {
        reconciles++;
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        if (hold) await new Promise<void>((resolve) => held.push(resolve));
        inFlight--;
        return { requeueAfter: 100 };
      });
    const stop = new AbortController();
    let failed: unknown;
    let stopped = false;
    const done = manager.start(stop.signal).then(
      () => {
        stopped = true;
      },
      (err: unknown) => {
        failed = err;
        stopped = true;
      },
    );

    await clock.advanceAsync(2_000);
    expect(manager.elector?.isLeader()).toBe(true);
    expect(reconciles).toBe(1);
    // Renewals fail past the 2 s renew deadline: the term ends with its reconcile still running.
    outage.cut();
    await clock.advanceAsync(3_000);
    expect(manager.elector?.isLeader()).toBe(false);
    // The lease could be won back at once (it is still ours), but the old term has not drained.
    outage.restore();
    await clock.advanceAsync(5_000);
    expect(failed).toBeUndefined();
    expect(stopped).toBe(false);
    expect(manager.elector?.isLeader()).toBe(false);
    expect(reconciles).toBe(1);

    hold = false;
    for (const resolve of held.splice(0)) resolve();
    await clock.advanceAsync(5_000);
    expect(failed).toBeUndefined();
    expect(manager.elector?.isLeader()).toBe(true);
    expect(reconciles).toBeGreaterThan(1);
    expect(mostInFlight).toBe(1);

    stop.abort();
    for (let i = 0; i < 100 && !stopped; i++) await clock.advanceAsync(1_000);
    await done;
    expect(failed).toBeUndefined();
  });
});
