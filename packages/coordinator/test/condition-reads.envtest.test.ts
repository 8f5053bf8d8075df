/**
 * The conditions gates' reads on envtest (issue 44): through informers of the manager's cache, one
 * per condition restricted to what it names, so once synced a round asks the API server nothing;
 * until then (and for a kind that is not served) the round reads the API server, once per object
 * however many conditions name it. A missing object and an unserved kind both fail closed.
 */
import { testCrd } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Client, defineResource, type KubeObject, Manager } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConditionReads, conditionResource, conditionRestriction } from '../src/gates/condition-reads.js';
import { readConditionsGate } from '../src/gates/conditions-gate.js';

const env = useControlPlane('condition-reads');
const GROUP = 'reads.capstan.dev';
const Gauge = defineResource<KubeObject & { spec?: { health?: string } }>({
  ...{ group: GROUP, version: 'v1', kind: 'Gauge', plural: 'gauges', namespaced: false },
});

let admin: Client;
let manager: Manager;
let prefix: string;
const stop = new AbortController();
let running: Promise<void> | undefined;
const named = (name: string, kind = 'Gauge') => ({
  ...{ apiVersion: `${GROUP}/v1`, kind, name },
  expression: "object.spec.health == 'OK'",
});

beforeAll(async () => {
  prefix = env.namespace;
  admin = new Client(new HttpTransport(env.kubeConfig));
  await env.plane.installCRDs([testCrd(Gauge, { status: false })]);
  for (const [name, health] of [
    ['a', 'OK'],
    ['b', 'WARN'],
    ['c', 'OK'],
  ])
    await admin.create(Gauge, { metadata: { name: `${prefix}-${name}` }, spec: { health } });
  manager = Manager.create({
    ...{ kubeConfig: env.kubeConfig, metricsBindAddress: '0', healthProbeBindAddress: '0' },
    logLevel: 'silent',
  });
  running = manager.start(stop.signal);
});
afterAll(async () => {
  stop.abort();
  await running;
  for (const n of ['a', 'b', 'c']) await admin?.deleteIfExists(Gauge, { name: `${prefix}-${n}` });
});

/** One round's read of `conditions`: the states, and how many reads went to the API server. */
async function round(conditions: ReturnType<typeof named>[]) {
  const reads = new ConditionReads(manager.client, manager.cache);
  const states = await readConditionsGate(reads, conditions);
  return { states: states.map((s) => s.state), direct: reads.directReads };
}

describe('the conditions gates read through informers', () => {
  it('reads the API server once per object until its informer has synced, then never', async () => {
    const a = named(`${prefix}-a`);
    const b = named(`${prefix}-b`);
    // Three conditions, two objects: the first round reads each once from the API server.
    const first = await round([a, b, a]);
    expect(first).toEqual({ states: ['Open', 'Closed', 'Open'], direct: 2 });
    const synced = await eventually(async () => ((await round([a, b])).direct === 0 ? true : undefined), {
      what: 'the informers synced',
      timeoutMs: 20_000,
    });
    expect(synced).toBe(true);
    for (let i = 0; i < 5; i++)
      expect(await round([a, b, a])).toEqual({ states: ['Open', 'Closed', 'Open'], direct: 0 });
    // A change arrives by the watch, not by a read.
    await admin.patch(Gauge, { name: `${prefix}-b` }, 'merge', { spec: { health: 'OK' } });
    let direct = 0;
    await eventually(
      async () => {
        const r = await round([b]);
        direct += r.direct;
        return r.states[0] === 'Open';
      },
      { what: 'the change seen through the informer', timeoutMs: 20_000 },
    );
    expect(direct).toBe(0);
  });

  it('caches only what a condition names: one object, not its kind', async () => {
    const c = named(`${prefix}-c`);
    await round([c]);
    const informer = manager.cache.informerFor(conditionResource(c), conditionRestriction(c));
    await eventually(() => informer.hasSynced(), { what: 'the informer of c synced', timeoutMs: 20_000 });
    expect(informer.store.list().map((o) => o.metadata.name)).toEqual([`${prefix}-c`]);
    expect(conditionRestriction(c)).toEqual({ fieldSelector: `metadata.name=${prefix}-c` });
  });

  it('a missing object and a kind the API server does not serve fail closed, saying why', async () => {
    const missing = named(`${prefix}-missing`);
    await eventually(async () => ((await round([missing])).direct === 0 ? true : undefined), {
      what: 'the informer of the missing object synced (empty)',
      timeoutMs: 20_000,
    });
    const reads = new ConditionReads(manager.client, manager.cache);
    const [gone] = await readConditionsGate(reads, [missing]);
    expect(gone).toMatchObject({
      state: 'Error',
      message: expect.stringMatching(/missing could not be read: not found/),
    });
    const unserved = named('x', 'Nothing');
    const [error] = await readConditionsGate(reads, [unserved]);
    expect(error).toMatchObject({
      state: 'Error',
      message: expect.stringMatching(/Nothing x could not be read/),
    });
    expect(reads.directReads).toBe(1);
  });
});
