import { useControlPlane } from '@capstan/envtest/vitest';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InformerCache } from '../../src/cache/index.js';
import { Client, ConfigMap, HttpTransport, TerminalError } from '../../src/client/index.js';
import {
  type Controller,
  ControllerBuilder,
  generationChanged,
  type Request,
  type Result,
} from '../../src/controller/index.js';
import { eventually } from '../../src/testing/index.js';
import { ExponentialRateLimiter } from '../../src/workqueue/index.js';
import { type Gizmo, GizmoType, gizmoCrd } from './gizmo.js';

const env = useControlPlane('controller');
let client: Client;
let transport: HttpTransport;
const running: Array<{ cache: InformerCache; controller: Controller }> = [];
const silent = pino({ level: 'silent' });

beforeAll(async () => {
  await env.plane.installCRDs([gizmoCrd]);
  transport = new HttpTransport(env.kubeConfig);
  client = new Client(transport);
});

afterEach(async () => {
  for (const { cache, controller } of running.splice(0)) {
    await controller.stop();
    await cache.stop();
  }
});

/** Starts a controller for Gizmos (owning ConfigMaps) whose reconciles are recorded. */
function startController(
  reconcile: (request: Request) => Promise<Result | undefined> | Result | undefined,
  configure: (b: ControllerBuilder) => ControllerBuilder = (b) => b.for(GizmoType).owns(ConfigMap),
) {
  const cache = new InformerCache(transport);
  const calls: Array<{ key: string; at: number }> = [];
  const builder = new ControllerBuilder(cache, { logger: silent }, { namespace: env.namespace });
  const controller = configure(builder).build(async (request) => {
    calls.push({ key: `${request.namespace}/${request.name}`, at: Date.now() });
    return reconcile(request);
  });
  cache.start();
  void controller.start();
  running.push({ cache, controller });
  return { calls, controller, cache };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function createGizmo(name: string, size = 1): Promise<Gizmo> {
  return client.create(GizmoType, { metadata: { name, namespace: env.namespace }, spec: { size } });
}

describe('Controller on a real apiserver', () => {
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
    await sleep(500);
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
    await sleep(700);
    expect(count()).toBe(afterCreate);
    await client.patch(GizmoType, { namespace: env.namespace, name: 'pred' }, 'merge', { spec: { size: 2 } });
    await eventually(() => count() > afterCreate);
    await sleep(300);
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
    await eventually(() => calls.filter((c) => c.key.endsWith('/fails')).length >= 5, { timeoutMs: 15_000 });
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
        await sleep(150);
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
    await sleep(400);
    expect(maxSameKey).toBe(1);
    expect(maxTotal).toBeGreaterThan(1);
  });
});
