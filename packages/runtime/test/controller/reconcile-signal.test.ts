/**
 * A reconcile's signal is made only when the reconciler reads it, yet behaves as one made up
 * front: the timeout and the controller's stop reach it whether it is read before or after them.
 * The controller runs on the in-memory cluster and a manual clock; the pure part has a property test.
 */
import fc from 'fast-check';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { InformerCache } from '../../src/cache/index.js';
import { Client } from '../../src/client/index.js';
import {
  type Controller,
  ControllerBuilder,
  type ReconcileContext,
  ReconcileTimeoutError,
} from '../../src/controller/index.js';
import { ReconcileSignal } from '../../src/controller/reconcile-signal.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { GizmoType } from './gizmo.js';

const namespace = 'signal-test';
const TIMEOUT_MS = 1_000;
let clock: ManualClock;
let stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const stop of stops) await stop();
  stops = [];
});

/** Runs a Gizmo controller with a reconcile timeout; `reconcile` sees each call's context. */
async function run(reconcile: (context: ReconcileContext, call: number) => Promise<void>) {
  clock = new ManualClock();
  const cluster = new FakeCluster({ clock, kinds: [GizmoType] });
  const cache = new InformerCache(cluster, { clock });
  let calls = 0;
  const controller: Controller = new ControllerBuilder(
    cache,
    { logger: pino({ level: 'silent' }), clock },
    { namespace },
  )
    .for(GizmoType)
    .withOptions({ reconcileTimeoutMs: TIMEOUT_MS })
    .build(async (_request, context) => {
      calls++;
      await reconcile(context, calls);
    });
  cache.start();
  const running = controller.start();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // Reconciles may wait on the virtual clock: move it until they are drained.
    await clock.advanceUntilSettled(controller.stop());
    await running;
    await cache.stop();
  };
  stops.push(stop);
  await new Client(cluster).create(GizmoType, { metadata: { name: 'g', namespace }, spec: { size: 1 } });
  return { controller, stop, calls: () => calls };
}

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('a reconcile signal read lazily', () => {
  it('read before the timeout: aborts with ReconcileTimeoutError when it passes', async () => {
    const reasons: unknown[] = [];
    await run(async (context, call) => {
      if (call > 1) return;
      const signal = context.signal;
      expect(signal.aborted).toBe(false);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      reasons.push(signal.reason);
    });
    const t0 = clock.now();
    await clock.advanceUntil(() => reasons.length === 1);
    expect(reasons[0]).toBeInstanceOf(ReconcileTimeoutError);
    expect(clock.now() - t0).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
  });

  it('read after the timeout: is aborted already, with ReconcileTimeoutError, and the reconcile is retried', async () => {
    const late = gate();
    const seen: Array<{ aborted: boolean; reason: unknown }> = [];
    const world = await run(async (context, call) => {
      if (call > 1) return;
      await late.opened;
      seen.push({ aborted: context.signal.aborted, reason: context.signal.reason });
    });
    await clock.advanceUntil(() => world.calls() === 1);
    await clock.advanceAsync(TIMEOUT_MS + 1);
    late.open();
    // Finished too late: counted as an error and retried with backoff.
    await clock.advanceUntil(() => world.calls() === 2);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[0]?.reason).toBeInstanceOf(ReconcileTimeoutError);
  });

  it('read before the stop: aborts with the stop, not a timeout', async () => {
    const reasons: unknown[] = [];
    const started = gate();
    const world = await run(async (context) => {
      const signal = context.signal;
      started.open();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      reasons.push(signal.reason);
    });
    const t0 = clock.now();
    await clock.advanceUntil(() => world.calls() === 1);
    await started.opened;
    await world.stop();
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(Error);
    expect(reasons[0]).not.toBeInstanceOf(ReconcileTimeoutError);
    expect((reasons[0] as Error).message).toBe('controller stopping');
    expect(clock.now() - t0).toBeLessThan(TIMEOUT_MS);
  });

  it('read after the stop: is aborted already with the stop reason', async () => {
    const late = gate();
    const seen: Array<{ aborted: boolean; reason: unknown }> = [];
    const world = await run(async (context) => {
      await late.opened;
      seen.push({ aborted: context.signal.aborted, reason: context.signal.reason });
    });
    await clock.advanceUntil(() => world.calls() === 1);
    const stopped = world.stop();
    late.open();
    await stopped;
    expect(seen).toHaveLength(1);
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[0]?.reason).toEqual(new Error('controller stopping'));
  });

  it('never read: makes no AbortController, yet a timeout still counts and retries', async () => {
    const Original = globalThis.AbortController;
    let made = 0;
    const late = gate();
    const world = await run(async (_context, call) => {
      if (call === 1) {
        // Count AbortControllers made while this reconcile runs (it never reads the signal).
        globalThis.AbortController = class extends Original {
          constructor() {
            super();
            made++;
          }
        };
        await late.opened;
      }
    });
    try {
      await clock.advanceUntil(() => world.calls() === 1);
      await clock.advanceAsync(TIMEOUT_MS + 1);
      late.open();
      await clock.advanceUntil(() => world.calls() === 2);
    } finally {
      globalThis.AbortController = Original;
    }
    expect(made).toBe(0);
  });
});

/** One thing that can happen to a reconcile's signal. */
type Step = 'stop' | 'timeout' | 'read';

describe('ReconcileSignal', () => {
  it('whenever it is read, its reason is that of the first of stop and timeout', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<Step>('stop', 'timeout', 'read'), { maxLength: 6 }), (steps) => {
        const stop = new AbortController();
        const signal = new ReconcileSignal(stop.signal);
        const timeout = new ReconcileTimeoutError('late');
        let first: 'stop' | 'timeout' | undefined;
        for (const step of steps) {
          if (step === 'stop') {
            stop.abort();
            first ??= 'stop';
          } else if (step === 'timeout') {
            signal.abort(timeout);
            first ??= 'timeout';
          } else {
            const s = signal.signal;
            expect(s.aborted).toBe(first !== undefined);
          }
          const reason = signal.reason;
          if (first === undefined) expect(reason).toBeUndefined();
          else if (first === 'timeout') expect(reason).toBe(timeout);
          else expect((reason as Error).message).toBe('controller stopping');
        }
        const s = signal.signal;
        expect(s.aborted).toBe(first !== undefined);
        signal.dispose();
      }),
    );
  });
});
