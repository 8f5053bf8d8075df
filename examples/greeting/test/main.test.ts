/**
 * The Greeting example run as a user runs it: `node dist/main.js` with the standard flags, as two
 * replicas sharing one leader election Lease. Checks the election, the probes, the metrics, that
 * only the leader reconciles, and the hand-over when the leader gets SIGTERM (exit 0, lease released,
 * the standby takes over long before the lease would have expired).
 *
 * It runs the built JavaScript (`npx tsc -b` first), not the sources.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Client } from '@capstan/runtime';
import { ConfigMap, Event, HttpTransport, Lease, type WatchHandle } from '@capstan/runtime/client';
import { type EventuallyOptions, eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Greeting, GreetingType } from '../src/index.js';

const env = useControlPlane('greeting-main');
const mainJs = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const mainTs = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const crd = fileURLToPath(new URL('../deploy/crd.yaml', import.meta.url));

const LEASE_ID = 'greeting-controller';
const CONTROLLER = 'greeting';
/** The default `--leader-elect-lease-duration`; the hand-over must come long before it. */
const LEASE_DURATION_MS = 15_000;
/** The default retry period (2 s) times the largest jitter (1 + 1.2): a standby's longest wait. */
const LONGEST_RETRY_MS = 2_000 * 2.2;

// --- child processes ---------------------------------------------------------------------------

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** `Date.now()` when this process saw the child exit. */
  at: number;
}

const live = new Set<ChildProcess>();
// Last resort on a normal exit of the test worker; the watchdogs cover a crash or a SIGKILL.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** One `node dist/main.js` replica, its output kept for assertions and failure messages. */
class Replica {
  readonly exited: Promise<Exit>;
  exit: Exit | undefined;
  private output = '';

  private constructor(
    readonly name: string,
    readonly metricsPort: number,
    readonly probesPort: number,
    private readonly child: ChildProcess,
  ) {
    live.add(child);
    const append = (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    // A child that cannot start (ENOENT, ...) emits 'error' and no 'exit'.
    const spawnFailed = new Promise<Exit>((resolve) =>
      child.once('error', (err) => {
        this.output += `\n[spawn error] ${err.message}\n`;
        resolve({ code: null, signal: null, at: Date.now() });
      }),
    );
    const exited = new Promise<Exit>((resolve) =>
      // 'close' (not 'exit'): by then every byte of stdout and stderr has been read.
      child.once('close', (code, signal) => resolve({ code, signal, at: Date.now() })),
    );
    this.exited = Promise.race([exited, spawnFailed]).then((exit) => {
      this.exit = exit;
      live.delete(child);
      return exit;
    });
  }

  /** Starts `node dist/main.js` with the standard flags a user would pass. */
  static start(name: string, metricsPort: number, probesPort: number, namespace: string): Replica {
    const args = [
      mainJs,
      '--kubeconfig',
      env.plane.kubeconfigPath,
      '--namespace',
      namespace,
      '--leader-elect',
      '--leader-election-id',
      LEASE_ID,
      '--leader-election-namespace',
      namespace,
      '--metrics-bind-address',
      `127.0.0.1:${metricsPort}`,
      '--health-probe-bind-address',
      `127.0.0.1:${probesPort}`,
      '--log-level',
      'info',
      '--log-format',
      'json',
    ];
    // Nothing from the test runner's environment decides what the controller talks to or loads.
    const { NODE_OPTIONS: _o, KUBECONFIG: _k, POD_NAMESPACE: _p, ...childEnv } = process.env;
    const child = spawn(process.execPath, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const stopWatchdog = child.pid === undefined ? () => {} : watchdog(child.pid);
    const replica = new Replica(name, metricsPort, probesPort, child);
    void replica.exited.then(stopWatchdog);
    return replica;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The log lines that parse as JSON. */
  logs(): Array<Record<string, unknown>> {
    const lines: Array<Record<string, unknown>> = [];
    for (const line of this.output.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a partial last line, or not ours
      }
    }
    return lines;
  }

  /** The identity it campaigns under, from its leader election log lines. */
  identity(): string | undefined {
    const line = this.logs().find((l) => typeof l.identity === 'string');
    return line?.identity as string | undefined;
  }

  logged(msg: string): boolean {
    return this.logs().some((l) => l.msg === msg);
  }

  tail(lines = 40): string {
    return this.output.trimEnd().split('\n').slice(-lines).join('\n');
  }

  describe(): string {
    const state = this.exit
      ? `exited code=${this.exit.code} signal=${this.exit.signal}`
      : `running pid=${this.pid}`;
    return `--- replica ${this.name} (${state}, metrics :${this.metricsPort}, probes :${this.probesPort}, identity ${this.identity()})\n${this.tail()}`;
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.exit) this.child.kill(signal);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.exit) return;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** GET on one of its servers; `undefined` status when nothing answered. */
  async get(port: number, path: string): Promise<{ status: number | undefined; body: string }> {
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
      return { status: res.status, body: await res.text() };
    } catch (err) {
      return { status: undefined, body: String(err) };
    }
  }

  async metrics(): Promise<string> {
    const { status, body } = await this.get(this.metricsPort, '/metrics');
    if (status !== 200) throw new Error(`/metrics of ${this.name}: ${status} ${body}`);
    return body;
  }
}

/**
 * Kills `pid` if this test worker dies without stopping it (a crash, SIGKILL), as envtest does for
 * its binaries. Returns what ends the watchdog itself, once the child is gone.
 */
function watchdog(pid: number): () => void {
  const script = 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -9 "$2" 2>/dev/null';
  const dog = spawn('sh', ['-c', script, 'watchdog', String(process.pid), String(pid)], {
    detached: true,
    stdio: 'ignore',
  });
  dog.unref();
  return () => dog.kill('SIGKILL');
}

/** Distinct free loopback ports: all held open at once, then released. */
async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      const address = server.address();
      if (!address || typeof address === 'string') throw new Error('no port');
      ports.push(address.port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}

// --- Prometheus text -----------------------------------------------------------------------------

interface Sample {
  labels: Record<string, string>;
  value: number;
}

function samples(text: string, metric: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/);
    if (!m || m[1] !== metric) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1] as string] = l[2] as string;
    found.push({ labels, value: Number(m[3]) });
  }
  return found;
}

/** The value of the one series of `metric` whose labels include `labels`; undefined when absent. */
function metricValue(text: string, metric: string, labels: Record<string, string>): number | undefined {
  const matching = samples(text, metric).filter((s) =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (matching.length > 1) throw new Error(`${metric} ${JSON.stringify(labels)} matches several series`);
  return matching[0]?.value;
}

/** All reconciles of the greeting controller, whatever their result. */
function reconcilesOf(text: string): number {
  return samples(text, 'controller_runtime_reconcile_total')
    .filter((s) => s.labels.controller === CONTROLLER)
    .reduce((sum, s) => sum + s.value, 0);
}

const successes = (text: string) =>
  metricValue(text, 'controller_runtime_reconcile_total', { controller: CONTROLLER, result: 'success' });
const leaderStatus = (text: string) => metricValue(text, 'leader_election_master_status', { name: LEASE_ID });

// --- the Lease, as a watch saw it ----------------------------------------------------------------

interface LeaseRecord {
  /** `Date.now()` when the event arrived. */
  at: number;
  type: string;
  holder: string;
  durationSeconds: number | undefined;
  transitions: number | undefined;
  renewTime: string | undefined;
}

/** Every version of the Lease since before the replicas started, so that no state is missed. */
class LeaseHistory {
  readonly records: LeaseRecord[] = [];
  readonly problems: string[] = [];
  private handle: WatchHandle | undefined;
  private resourceVersion: string | undefined;
  private stopped = false;

  constructor(
    private readonly transport: HttpTransport,
    private readonly namespace: string,
  ) {}

  async start(): Promise<void> {
    const options = {
      namespace: this.namespace,
      fieldSelector: `metadata.name=${LEASE_ID}`,
      timeoutSeconds: 1800,
      idleTimeoutMs: 0,
      ...(this.resourceVersion ? { resourceVersion: this.resourceVersion } : {}),
    };
    this.handle = await this.transport.watch(Lease, options, {
      onEvent: (event) => {
        if (event.type === 'ERROR') {
          this.problems.push(`watch error: ${JSON.stringify(event.status)}`);
          return;
        }
        if (event.type === 'BOOKMARK') return;
        const lease = event.object;
        this.resourceVersion = lease.metadata.resourceVersion;
        this.records.push({
          at: Date.now(),
          type: event.type,
          holder: lease.spec?.holderIdentity ?? '',
          durationSeconds: lease.spec?.leaseDurationSeconds,
          transitions: lease.spec?.leaseTransitions,
          renewTime: lease.spec?.renewTime,
        });
      },
      onClose: (error) => {
        if (this.stopped) return;
        this.problems.push(`watch closed (${error?.message ?? 'cleanly'}); resuming`);
        this.start().catch((err: unknown) => this.problems.push(`cannot resume the watch: ${String(err)}`));
      },
    });
  }

  stop(): void {
    this.stopped = true;
    this.handle?.stop();
  }

  /** The last version seen. */
  get latest(): LeaseRecord | undefined {
    return this.records.at(-1);
  }

  describe(): string {
    const rows = this.records.map(
      (r) =>
        `  ${new Date(r.at).toISOString()} ${r.type} holder="${r.holder}" duration=${r.durationSeconds} ` +
        `transitions=${r.transitions} renew=${r.renewTime}`,
    );
    return `--- lease ${LEASE_ID} history\n${rows.join('\n')}${
      this.problems.length ? `\n  problems: ${this.problems.join('; ')}` : ''
    }`;
  }
}

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
  replicas.push(Replica.start('a', m1, p1, env.namespace), Replica.start('b', m2, p2, env.namespace));
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
