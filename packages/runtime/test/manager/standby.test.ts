/**
 * A manager with `onLoss: 'standby'` that loses its lease while a reconcile is in flight, on the
 * in-memory cluster and a manual clock: it campaigns again only once that reconcile has returned,
 * then leads and reconciles again. It does not fail, and never runs two reconciles at once; if
 * that reconcile never returns, the manager fails after its graceful timeout (a clean restart),
 * and so it does when a controller gave up waiting for it (its drain timeout).
 */
import { describe, expect, it } from 'vitest';
import { ConfigMap, Lease } from '../../src/client/builtin.js';
import { Manager } from '../../src/manager/manager.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { leaseOutage } from './leaderelection/lease-outage.js';

/**
 * A standby manager on a manual clock whose reconciles wait until `state.release()`; `stuck`
 * adds a leader-only runnable that ignores its signal and never returns.
 */
function standbyManager(stuck = false, drainTimeoutMs?: number) {
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
    .withOptions(drainTimeoutMs === undefined ? {} : { drainTimeoutMs })
    .build(async () => {
      reconciles++;
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      if (hold) await new Promise<void>((resolve) => held.push(resolve));
      inFlight--;
      return { requeueAfter: 100 };
    });
  if (stuck) manager.add({ name: 'stuck', start: () => new Promise<void>(() => {}) });
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

  const state = {
    get reconciles() {
      return reconciles;
    },
    get mostInFlight() {
      return mostInFlight;
    },
    get failed() {
      return failed;
    },
    get stopped() {
      return stopped;
    },
    release() {
      hold = false;
      for (const resolve of held.splice(0)) resolve();
    },
  };
  return { clock, outage, manager, stop, done, state };
}

describe('a standby manager', () => {
  it('starts a new term only after the last term has drained, and keeps running', async () => {
    const { clock, outage, manager, stop, done, state } = standbyManager();
    await clock.advanceAsync(2_000);
    expect(manager.elector?.isLeader()).toBe(true);
    expect(state.reconciles).toBe(1);
    // Renewals fail past the 2 s renew deadline: the term ends with its reconcile still running.
    outage.cut();
    await clock.advanceAsync(3_000);
    expect(manager.elector?.isLeader()).toBe(false);
    // The lease could be won back at once (it is still ours), but the old term has not drained.
    outage.restore();
    await clock.advanceAsync(5_000);
    expect(state.failed).toBeUndefined();
    expect(state.stopped).toBe(false);
    expect(manager.elector?.isLeader()).toBe(false);
    expect(state.reconciles).toBe(1);

    state.release();
    await clock.advanceAsync(5_000);
    expect(state.failed).toBeUndefined();
    expect(manager.elector?.isLeader()).toBe(true);
    expect(state.reconciles).toBeGreaterThan(1);
    expect(state.mostInFlight).toBe(1);

    stop.abort();
    for (let i = 0; i < 100 && !state.stopped; i++) await clock.advanceAsync(1_000);
    await done;
    expect(state.failed).toBeUndefined();
  });

  it('fails, rather than stay passive for good, when the lost term does not return in time', async () => {
    // A controller returns by itself after its own graceful timeout; a runnable of the user's may not.
    const { clock, outage, manager, done, state } = standbyManager(true);
    await clock.advanceAsync(2_000);
    outage.cut();
    await clock.advanceAsync(3_000);
    outage.restore();
    expect(manager.elector?.isLeader()).toBe(false);
    // The runnable never returns: past the 30 s graceful timeout the manager gives up.
    await clock.advanceAsync(25_000);
    expect(state.stopped).toBe(false);
    for (let i = 0; i < 100 && !state.stopped; i++) await clock.advanceAsync(1_000);
    await done;
    expect(String(state.failed)).toMatch(
      /after losing the lease, leader-only work did not stop within 30000 ms/,
    );
    expect(manager.elector?.isLeader()).toBe(false);
    expect(state.reconciles).toBe(1); // no second term
    state.release();
  });

  it("fails, rather than lead again beside it, when a reconcile outlives its controller's drain timeout", async () => {
    // The controller returns after 1 s of drain with its reconcile still running; a new term
    // would reconcile the same key next to it.
    const { clock, outage, manager, done, state } = standbyManager(false, 1_000);
    await clock.advanceAsync(2_000);
    outage.cut();
    await clock.advanceAsync(3_000);
    outage.restore();
    for (let i = 0; i < 60 && !state.stopped; i++) await clock.advanceAsync(1_000);
    // Without the check it leads again and reconciles the key beside the running one.
    expect(state.mostInFlight).toBe(1);
    expect(state.stopped).toBe(true);
    await done;
    expect(String(state.failed)).toMatch(
      /after losing the lease, reconciles still run past their drain timeout: configmap \(1\)/,
    );
    expect(manager.elector?.isLeader()).toBe(false);
    expect(state.reconciles).toBe(1);
    expect(state.mostInFlight).toBe(1);
    state.release();
  });
});
