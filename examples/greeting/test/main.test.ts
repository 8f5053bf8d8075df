/**
 * The Greeting example run as a user runs it: `node dist/main.js` with the standard flags, as two
 * replicas sharing one leader election Lease. Checks the election, the probes, the metrics, that
 * only the leader reconciles, and the hand-over when the leader gets SIGTERM (exit 0, lease released,
 * the standby takes over long before the lease would have expired).
 *
 * It runs the built JavaScript (`npx tsc -b` first), not the sources.
 */
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePorts } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Client } from '@capstan/runtime';
import { ConfigMap, Event, HttpTransport } from '@capstan/runtime/client';
import { type EventuallyOptions, eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Greeting, GreetingType } from '../src/index.js';
import { LeaseHistory, type LeaseRecord, leaderStatus, reconcilesOf, successes } from './observe.js';
import { type Exit, mainJs, Replica } from './replica.js';

const env = useControlPlane('greeting-main');
const mainTs = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const crd = fileURLToPath(new URL('../deploy/crd.yaml', import.meta.url));

/** The default `--leader-elect-lease-duration`; the hand-over must come long before it. */
const LEASE_DURATION_MS = 15_000;
/** The default retry period (2 s) times the largest jitter (1 + 1.2): a standby's longest wait. */
const LONGEST_RETRY_MS = 2_000 * 2.2;

// --- shared state and helpers ------------------------------------------------------------------

let client: Client;
let transport: HttpTransport;
let lease: LeaseHistory;
const replicas: Replica[] = [];
let leader: Replica;
let standby: Replica;

/** Everything worth seeing when an assertion fails. */
function diagnostics(): string {
  return ['', ...replicas.map((r) => r.describe()), lease?.describe() ?? ''].join('\n');
}

/** Options for `eventually`: what is awaited, polled every 100 ms, with the diagnostics on timeout. */
function diagnosed(what: string, timeoutMs = 30_000): EventuallyOptions {
  return { what, timeoutMs, intervalMs: 100, details: () => diagnostics().trimStart() };
}

/** Resolves with the exit of `replica`, or fails after `timeoutMs`. */
async function exitOf(replica: Replica, timeoutMs: number): Promise<Exit> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`replica ${replica.name} did not exit within ${timeoutMs} ms${diagnostics()}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([replica.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function createGreeting(name: string, message: string, recipients: string[]): Promise<Greeting> {
  return client.create(GreetingType, {
    metadata: { name, namespace: env.namespace },
    spec: { message, recipients },
  });
}

/** Waits for the Greeting's ConfigMap and Ready condition; returns both. */
async function reconciled(name: string) {
  const cm = await eventually(
    () => client.get(ConfigMap, { namespace: env.namespace, name: `${name}-greeting` }),
    diagnosed(`ConfigMap ${name}-greeting`),
  );
  const greeting = await eventually(
    async () => {
      const g = await client.get(GreetingType, { namespace: env.namespace, name });
      const ready = g.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'True' ? g : undefined;
    },
    diagnosed(`Greeting ${name} Ready`),
  );
  return { cm, greeting };
}

/** The `Created` event the reconciler recorded for a Greeting (it names the writing replica). */
async function createdEvent(name: string): Promise<Event> {
  return eventually(
    async () => {
      const events = await client.list(Event, { namespace: env.namespace });
      return events.items.find(
        (e) => e.regarding?.kind === 'Greeting' && e.regarding.name === name && e.reason === 'Created',
      );
    },
    diagnosed(`the Created event of Greeting ${name}`),
  );
}

beforeAll(async () => {
  if (!existsSync(mainJs)) throw new Error(`${mainJs} is missing: run \`npx tsc -b\` first`);
  if (statSync(mainTs).mtimeMs > statSync(mainJs).mtimeMs) {
    throw new Error(`${mainJs} is older than its source: run \`npx tsc -b\` first`);
  }
  await env.plane.installCRDs([crd]);
  transport = new HttpTransport(env.kubeConfig);
  client = new Client(transport);
  lease = new LeaseHistory(transport, env.namespace);
  await lease.start();

  const [m1, p1, m2, p2] = (await freePorts(4)) as [number, number, number, number];
  replicas.push(
    Replica.start('a', m1, p1, env.namespace, env.plane.kubeconfigPath),
    Replica.start('b', m2, p2, env.namespace, env.plane.kubeconfigPath),
  );
});

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  lease?.stop();
});

// --- the tests ---------------------------------------------------------------------------------

describe('the Greeting example started from its main, as two replicas', () => {
  it('elects exactly one leader; both replicas serve /healthz and /readyz', async () => {
    const [a, b] = replicas as [Replica, Replica];

    // Both campaign (each logs its identity once its caches synced), under different identities.
    const ids = await eventually(
      () => {
        const [ia, ib] = [a.identity(), b.identity()];
        return ia && ib ? [ia, ib] : undefined;
      },
      diagnosed('both replicas campaigning', 90_000),
    );
    expect(ids[0], diagnostics()).not.toBe(ids[1]);

    const holder = await eventually(
      () => lease.latest?.holder || undefined,
      diagnosed('a holder in the Lease', 60_000),
    );
    expect(ids, diagnostics()).toContain(holder);
    leader = holder === ids[0] ? a : b;
    standby = leader === a ? b : a;

    // The leader election metric agrees: 1 on the leader, 0 (present) on the standby.
    await eventually(
      async () => (leaderStatus(await leader.metrics()) === 1 ? true : undefined),
      diagnosed('leader_election_master_status 1 on the leader'),
    );
    await eventually(
      async () => (leaderStatus(await standby.metrics()) === 0 ? true : undefined),
      diagnosed('leader_election_master_status 0 on the standby'),
    );
    expect(leader.logged('became the leader'), diagnostics()).toBe(true);

    // The leader renews (renewTime moves on) and the standby does not take over meanwhile.
    const firstRenew = lease.latest?.renewTime;
    await eventually(
      () => (lease.records.some((r) => r.renewTime !== firstRenew && r.holder === holder) ? true : undefined),
      diagnosed('a renewal of the lease'),
    );
    expect(new Set(lease.records.map((r) => r.holder)), diagnostics()).toEqual(new Set([holder]));
    expect(standby.logged('became the leader'), diagnostics()).toBe(false);
    expect(leaderStatus(await standby.metrics()), diagnostics()).toBe(0);

    for (const replica of replicas) {
      const healthz = await replica.get(replica.probesPort, '/healthz');
      expect(healthz.status, `${replica.name} /healthz: ${healthz.body}${diagnostics()}`).toBe(200);
      await eventually(
        async () => {
          const readyz = await replica.get(replica.probesPort, '/readyz');
          return readyz.status === 200 ? true : undefined;
        },
        diagnosed(`${replica.name} /readyz 200`),
      );
    }
  }, 180_000);

  it('the leader reconciles a Greeting; the standby reconciles nothing', async () => {
    const created = await createGreeting('first', 'Hello', ['Ada', 'Linus']);
    const { cm, greeting } = await reconciled('first');
    expect(cm.data, diagnostics()).toEqual({ greeting: 'Hello, Ada!\nHello, Linus!' });
    expect(cm.metadata.ownerReferences?.[0], diagnostics()).toMatchObject({
      kind: 'Greeting',
      uid: created.metadata.uid,
      controller: true,
    });
    expect(greeting.status?.observedGeneration).toBe(1);
    expect(greeting.status?.configMapName).toBe('first-greeting');

    // The event was recorded by the leader's instance.
    const event = await createdEvent('first');
    expect(event.reportingController).toBe('example.capstan.dev/greeting');
    expect(event.reportingInstance, diagnostics()).toBe(leader.identity());

    const leaderSuccesses = await eventually(async () => {
      const n = successes(await leader.metrics());
      return n !== undefined && n >= 1 ? n : undefined;
    }, diagnosed('a successful reconcile on the leader /metrics'));
    expect(leaderSuccesses).toBeGreaterThanOrEqual(1);

    const standbyText = await standby.metrics();
    // The standby registered the controller (its series exist, at zero) but never ran it.
    expect(successes(standbyText), diagnostics()).toBe(0);
    expect(reconcilesOf(standbyText), diagnostics()).toBe(0);
    expect(leaderStatus(standbyText)).toBe(0);
  }, 120_000);

  it('on SIGTERM the leader exits 0 and releases the lease; the standby takes over at once', async () => {
    const oldLeader = leader;
    const newLeader = standby;
    const oldId = oldLeader.identity() as string;
    const newId = newLeader.identity() as string;
    const heldFrom = lease.records.length - 1;
    const transitionsBefore = lease.latest?.transitions ?? 0;

    const signalledAt = Date.now();
    oldLeader.signal('SIGTERM');
    const exit = await exitOf(oldLeader, 30_000);
    const exitMs = exit.at - signalledAt;
    expect({ code: exit.code, signal: exit.signal }, diagnostics()).toEqual({ code: 0, signal: null });
    expect(exitMs, diagnostics()).toBeLessThan(10_000);
    expect(oldLeader.logged('released the leader lease'), diagnostics()).toBe(true);
    expect(oldLeader.logged('manager stopped'), diagnostics()).toBe(true);

    const acquired = await eventually(
      () => lease.records.find((r, i) => i > heldFrom && r.holder === newId),
      diagnosed('the standby holding the lease', 30_000),
    );
    // In between: the release — holder cleared, duration 1 s — and no one else.
    const between = lease.records.slice(heldFrom + 1, lease.records.indexOf(acquired));
    const released = between.find((r) => r.holder === '');
    expect(released, diagnostics()).toMatchObject({ holder: '', durationSeconds: 1 });
    expect(
      between.every((r) => r.holder === oldId || r.holder === ''),
      diagnostics(),
    ).toBe(true);
    expect(acquired.durationSeconds).toBe(LEASE_DURATION_MS / 1000);
    expect(acquired.transitions).toBe(transitionsBefore + 1);

    // Taken over from the release, not from the expiry: within a standby's longest retry wait
    // (plus slack for a loaded machine), well before the 15 s lease would have run out.
    const afterRelease = acquired.at - (released as LeaseRecord).at;
    const afterExit = acquired.at - exit.at;
    console.info(
      `greeting main: SIGTERM→exit ${exitMs} ms, release→acquire ${afterRelease} ms, ` +
        `exit→acquire ${afterExit} ms`,
    );
    expect(afterRelease, diagnostics()).toBeLessThan(LONGEST_RETRY_MS + 3_000);
    expect(afterExit, diagnostics()).toBeLessThan(LEASE_DURATION_MS / 2);

    await eventually(
      async () => (leaderStatus(await newLeader.metrics()) === 1 ? true : undefined),
      diagnosed('leader_election_master_status 1 on the new leader'),
    );
    expect(newLeader.logged('became the leader'), diagnostics()).toBe(true);
    leader = newLeader;

    // The new leader reconciles a second Greeting.
    await createGreeting('second', 'Hi', ['Grace']);
    const { cm, greeting } = await reconciled('second');
    expect(cm.data, diagnostics()).toEqual({ greeting: 'Hi, Grace!' });
    expect(greeting.status?.observedGeneration).toBe(1);
    const event = await createdEvent('second');
    expect(event.reportingInstance, diagnostics()).toBe(newId);
    const n = await eventually(async () => {
      const value = successes(await newLeader.metrics());
      return value !== undefined && value >= 1 ? value : undefined;
    }, diagnosed('successful reconciles on the new leader /metrics'));
    expect(n).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('the last replica also stops cleanly on SIGTERM, leaving the lease released', async () => {
    const id = leader.identity() as string;
    const from = lease.records.length;
    leader.signal('SIGTERM');
    const exit = await exitOf(leader, 30_000);
    expect({ code: exit.code, signal: exit.signal }, diagnostics()).toEqual({ code: 0, signal: null });
    const released = await eventually(
      () => lease.records.slice(from).find((r) => r.holder === ''),
      diagnosed('the lease released'),
    );
    expect(released.durationSeconds).toBe(1);
    expect(lease.records.slice(from).every((r) => r.holder === '' || r.holder === id)).toBe(true);
  }, 60_000);
});
