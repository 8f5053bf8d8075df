/**
 * The controller on the in-memory cluster and a manual clock: what a reconcile's outcome does to
 * the queue (requeueAfter, backoff, terminal errors, panics), owner mapping, predicates and the
 * one-worker-per-key rule, each on virtual time, so timings are exact and nothing sleeps.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InformerCache } from '../../src/cache/index.js';
import { Client, ConfigMap, TerminalError } from '../../src/client/index.js';
import { sleep } from '../../src/clock.js';
import {
  type Controller,
  ControllerBuilder,
  generationChanged,
  type Request,
  type Result,
} from '../../src/controller/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { ExponentialRateLimiter } from '../../src/workqueue/index.js';
import { type Gizmo, GizmoType } from './gizmo.js';

const env = { namespace: 'controller-test' };
const silent = pino({ level: 'silent' });
let clock: ManualClock;
let cluster: FakeCluster;
let client: Client;
const running: Array<{ cache: InformerCache; controller: Controller }> = [];

/** A fresh cluster and clock for each test. */
function world() {
  clock = new ManualClock();
  cluster = new FakeCluster({ clock, kinds: [GizmoType, ConfigMap] });
  client = new Client(cluster);
}

afterEach(async () => {
  for (const { cache, controller } of running.splice(0)) {
    // Reconciles may be sleeping on the virtual clock: move it until they are drained.
    await clock.advanceUntilSettled(controller.stop());
    await cache.stop();
  }
});

/** Starts a controller for Gizmos (owning ConfigMaps) whose reconciles are recorded. */
function startController(
  reconcile: (request: Request) => Promise<Result | undefined> | Result | undefined,
  configure: (b: ControllerBuilder) => ControllerBuilder = (b) => b.for(GizmoType).owns(ConfigMap),
) {
  const cache = new InformerCache(cluster, { clock });
  const calls: Array<{ key: string; at: number }> = [];
  const builder = new ControllerBuilder(cache, { logger: silent, clock }, { namespace: env.namespace });
  const controller = configure(builder).build(async (request) => {
    calls.push({ key: `${request.namespace}/${request.name}`, at: clock.now() });
    return reconcile(request);
  });
  cache.start();
  void controller.start();
  running.push({ cache, controller });
  return { calls, controller, cache };
}

/** Moves virtual time until `done()` holds. */
const eventually = (done: () => boolean) => clock.advanceUntil(done);

/** Lets `ms` of virtual time pass, with everything that runs in it. */
const pass = (ms: number) => clock.advanceAsync(ms);

async function createGizmo(name: string, size = 1): Promise<Gizmo> {
  return client.create(GizmoType, { metadata: { name, namespace: env.namespace }, spec: { size } });
}

describe('Controller', () => {
  beforeEach(world);

  it('reconciles the owner when an owned object changes', async () => {
    const gizmo = await createGizmo('owner-a');
    const { calls } = startController(() => undefined);
    await eventually(() => calls.length >= 1);
    await client.create(ConfigMap, {
      metadata: {
        name: 'owned-a',
        namespace: env.namespace,
        ownerReferences: [
          {
            apiVersion: 'test.capstan.dev/v1',
            kind: 'Gizmo',
            name: 'owner-a',
            uid: gizmo.metadata.uid as string,
            controller: true,
          },
        ],
      },
      data: { v: '1' },
    });
    await eventually(() => calls.length >= 2);
    expect(calls.every((c) => c.key === `${env.namespace}/owner-a`)).toBe(true);
    const before = calls.length;
    await client.patch(ConfigMap, { namespace: env.namespace, name: 'owned-a' }, 'merge', {
      data: { v: '2' },
    });
    await eventually(() => calls.length > before);
    // A ConfigMap with no controller owner enqueues nothing.
    const settled = calls.length;
    await client.create(ConfigMap, { metadata: { name: 'unowned', namespace: env.namespace } });
    await pass(500);
    expect(calls.length).toBe(settled);
    await client.delete(GizmoType, { namespace: env.namespace, name: 'owner-a' });
  });

  it('filters events with predicates: a status write does not pass generationChanged', async () => {
    await createGizmo('pred');
    const { calls } = startController(
      () => undefined,
      (b) => b.for(GizmoType, { predicates: [generationChanged] }),
    );
    await eventually(() => calls.some((c) => c.key.endsWith('/pred')));
    const count = () => calls.filter((c) => c.key.endsWith('/pred')).length;
    const afterCreate = count();
    await client.patchStatus(GizmoType, { namespace: env.namespace, name: 'pred' }, 'merge', {
      status: { seen: 1 },
    });
    await pass(700);
    expect(count()).toBe(afterCreate);
    await client.patch(GizmoType, { namespace: env.namespace, name: 'pred' }, 'merge', { spec: { size: 2 } });
    await eventually(() => count() > afterCreate);
    await pass(300);
    expect(count()).toBe(afterCreate + 1);
  });

  it('fires requeueAfter without any event', async () => {
    await createGizmo('later');
    // Its own first reconcile asks for the requeue: earlier tests' objects may be reconciled first.
    const { calls } = startController((request) =>
      request.name === 'later' && calls.filter((c) => c.key.endsWith('/later')).length === 1
        ? { requeueAfter: 300 }
        : undefined,
    );
    await eventually(() => calls.filter((c) => c.key.endsWith('/later')).length >= 2);
    const [first, second] = calls.filter((c) => c.key.endsWith('/later'));
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(280);
  });

  it('backs off errors exponentially and never retries a terminal error', async () => {
    await createGizmo('fails');
    await createGizmo('terminal');
    const { calls } = startController(
      (request) => {
        if (request.name === 'terminal') throw new TerminalError('cannot be fixed by retrying');
        if (request.name === 'fails') throw new Error('transient');
        return undefined;
      },
      (b) => b.for(GizmoType).withOptions({ rateLimiter: new ExponentialRateLimiter(40, 10_000) }),
    );
    await eventually(() => calls.filter((c) => c.key.endsWith('/fails')).length >= 5);
    const times = calls.filter((c) => c.key.endsWith('/fails')).map((c) => c.at);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    // 40, 80, 160, 320 ms: each wait at least the base times 2^n (less a little timer slack).
    for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThanOrEqual(40 * 2 ** i - 10);
    expect(gaps[3]).toBeGreaterThan(gaps[0] as number);
    expect(calls.filter((c) => c.key.endsWith('/terminal'))).toHaveLength(1);
  });

  it('survives a reconciler that throws anything, and keeps working', async () => {
    await createGizmo('thrower');
    let thrown = 0;
    const { calls } = startController(
      (request) => {
        if (request.name === 'thrower' && thrown < 2) {
          thrown++;
          // Not even an Error: a bug must not take the process down.
          throw thrown === 1 ? 'a string' : new TypeError('undefined is not a function');
        }
        return undefined;
      },
      (b) => b.for(GizmoType).withOptions({ rateLimiter: new ExponentialRateLimiter(10, 100) }),
    );
    await eventually(() => calls.filter((c) => c.key.endsWith('/thrower')).length >= 3);
    expect(thrown).toBe(2);
  });

  it('never reconciles one key on two workers, while different keys run in parallel', async () => {
    const names = ['c0', 'c1', 'c2', 'c3'];
    for (const n of names) await createGizmo(n);
    const inFlight = new Map<string, number>();
    let maxSameKey = 0;
    let maxTotal = 0;
    let total = 0;
    const { calls } = startController(
      async (request) => {
        const n = (inFlight.get(request.name) ?? 0) + 1;
        inFlight.set(request.name, n);
        total++;
        maxSameKey = Math.max(maxSameKey, n);
        maxTotal = Math.max(maxTotal, total);
        await sleep(clock, 150);
        inFlight.set(request.name, (inFlight.get(request.name) ?? 1) - 1);
        total--;
        return undefined;
      },
      (b) => b.for(GizmoType).withOptions({ maxConcurrentReconciles: 4 }),
    );
    await eventually(() => calls.length >= names.length);
    // Hammer one key while its reconcile runs: it must be reconciled again, but never concurrently.
    for (let i = 0; i < 10; i++) {
      await client.patch(GizmoType, { namespace: env.namespace, name: 'c0' }, 'merge', {
        spec: { size: 10 + i },
      });
    }
    await eventually(() => calls.filter((c) => c.key.endsWith('/c0')).length >= 2);
    await pass(400);
    expect(maxSameKey).toBe(1);
    expect(maxTotal).toBeGreaterThan(1);
  });
});
