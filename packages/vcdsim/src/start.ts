/** `startVcdSim`: the simulator's programmatic entry point. */
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { type Clock, realClock } from '@capstan/runtime';
import { ManualClock } from '@capstan/runtime/testing';
import { affinityRoutes } from './api/affinity.js';
import { composeRoutes } from './api/compose.js';
import { diskRoutes } from './api/disks.js';
import { entityRoutes } from './api/entities.js';
import { metadataRoutes } from './api/metadata.js';
import { powerRoutes } from './api/power.js';
import { queryRoutes } from './api/query.js';
import { recomposeRoutes } from './api/recompose.js';
import { sessionRoutes } from './api/session.js';
import { taskRoutes } from './api/task.js';
import { vmConfigRoutes } from './api/vmconfig.js';
import { cloudApiRoutes } from './cloudapi/routes.js';
import type { Faults } from './faults/faults.js';
import { type Inspect, inspector } from './inspect/inspect.js';
import { inspectRoutes } from './inspect/routes.js';
import { buildWorld, parseSeed, readSeedFile } from './seed/load.js';
import type { Seed } from './seed/schema.js';
import { Router } from './server/router.js';
import { type InProcessRequest, listen, type ServedAnswer, serveInProcess } from './server/server.js';
import { type BootHook, Simulator } from './simulator.js';
import { generateTls } from './tls/ca.js';

/** Options of {@link startVcdSim}. */
export interface VcdSimOptions {
  /** The cloud's contents: a seed object, YAML text, or the path of a YAML file. */
  seed: Seed | string;
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /** Address to listen on (default `127.0.0.1`). */
  host?: string;
  /** Serve HTTPS with a generated CA (default true); false serves plain HTTP. */
  tls?: boolean;
  /** Extra names and addresses the server certificate is valid for (beside localhost, 127.0.0.1, ::1, and `host`). */
  tlsHosts?: string[];
  /** `'real'` (default), `'virtual'` (a {@link ManualClock} tests step by hand) or your own clock. */
  clock?: 'real' | 'virtual' | Clock;
  /** Task latency in ms on the simulator's clock (default 50). */
  taskLatencyMs?: number;
  /** Latency per task operation name, e.g. `{ vdcRecomposeVapp: 2000 }`. */
  operationLatencyMs?: Record<string, number>;
  /** Delay from a finished power-on to the guest's boot (default 100 ms). */
  bootDelayMs?: number;
  /** Access token lifetime (default 30 minutes). */
  tokenLifetimeMs?: number;
  /** Called when a VM boots, with its guestinfo (see {@link BootHook}). */
  onBoot?: BootHook;
  /** Whether booted guests serve their ports unless a hook says otherwise (default true). */
  servingOnBoot?: boolean;
  /** Receives one line per request (default: none). */
  log?: (line: string) => void;
  /**
   * `false`: open no socket; requests are served in-process through {@link VcdSim.serve} (for
   * harnesses on a virtual clock). Default true.
   */
  listen?: boolean;
}

/** A running simulator; `C` is its clock's type ({@link ManualClock} for `clock: 'virtual'`). */
export interface VcdSim<C extends Clock = Clock> {
  /** Base URL, e.g. `https://127.0.0.1:40123` (the API is under `/api` and `/cloudapi`). */
  url: string;
  /** The CA certificate (PEM) that signed the server's certificate: trust it in clients. Empty for plain HTTP. */
  caPem: string;
  /** Objects, tasks and the request log. */
  inspect: Inspect;
  /** The simulator's clock (a {@link ManualClock} when `clock: 'virtual'`). */
  clock: C;
  /** Fault injection. */
  faults: Faults;
  /** Serves one request in-process, through the same pipeline as the HTTP front. */
  serve(request: InProcessRequest): Promise<ServedAnswer>;
  /** Stops listening and closes open connections. */
  stop(): Promise<void>;
}

/** Where an in-process simulator says it is: hrefs in its answers start with it. */
export const IN_PROCESS_URL = 'https://vcdsim.in-process';

/** Where a virtual clock starts: a fixed instant, so runs on virtual time are reproducible. */
const VIRTUAL_EPOCH = Date.UTC(2026, 0, 1);

function loadSeed(seed: Seed | string): Seed {
  if (typeof seed !== 'string') return seed;
  return !seed.includes('\n') && existsSync(seed) ? readSeedFile(seed) : parseSeed(seed);
}

/**
 * Starts a VMware Cloud Director simulator.
 *
 * @example
 * ```ts
 * const sim = await startVcdSim({ seed: 'seeds/sample.yaml', clock: 'virtual' });
 * // fetch `${sim.url}/api/versions` trusting sim.caPem; sim.clock.advance(1000) runs due tasks
 * await sim.stop();
 * ```
 */
export async function startVcdSim(opts: VcdSimOptions & { clock: 'virtual' }): Promise<VcdSim<ManualClock>>;
export async function startVcdSim(opts: VcdSimOptions): Promise<VcdSim>;
export async function startVcdSim(opts: VcdSimOptions): Promise<VcdSim> {
  const world = buildWorld(loadSeed(opts.seed));
  const clock =
    opts.clock === 'virtual'
      ? new ManualClock(VIRTUAL_EPOCH)
      : !opts.clock || opts.clock === 'real'
        ? realClock
        : opts.clock;
  const sim = new Simulator(
    world,
    clock,
    {
      taskLatencyMs: opts.taskLatencyMs ?? 50,
      operationLatencyMs: opts.operationLatencyMs ?? {},
      bootDelayMs: opts.bootDelayMs ?? 100,
      servingOnBoot: opts.servingOnBoot ?? true,
    },
    opts.tokenLifetimeMs ?? 30 * 60_000,
  );
  if (opts.onBoot) sim.bootHooks.push(opts.onBoot);
  const inspect = inspector(sim);
  const router = new Router();
  sessionRoutes(router, sim);
  entityRoutes(router, sim);
  queryRoutes(router, sim);
  composeRoutes(router, sim);
  recomposeRoutes(router, sim);
  powerRoutes(router, sim);
  diskRoutes(router, sim);
  vmConfigRoutes(router, sim);
  metadataRoutes(router, sim);
  affinityRoutes(router, sim);
  taskRoutes(router, sim);
  cloudApiRoutes(router, sim);
  inspectRoutes(router, sim, inspect);
  sim.routes = router.routes.map((r) => `${r.method} ${r.pattern}`);
  const inProcess = (base: string) => (request: InProcessRequest) =>
    serveInProcess(sim, router, base, request);
  if (opts.listen === false) {
    const url = IN_PROCESS_URL;
    return {
      url,
      caPem: '',
      inspect,
      clock,
      faults: sim.faults,
      serve: inProcess(url),
      stop: async () => {},
    };
  }
  const host = opts.host ?? '127.0.0.1';
  const names = [
    'localhost',
    '127.0.0.1',
    '::1',
    ...(host === '0.0.0.0' || host === '::' ? [] : [host]),
    ...(opts.tlsHosts ?? []),
  ];
  const tls = opts.tls === false ? undefined : generateTls([...new Set(names)]);
  const { server, url } = await listen(sim, router, {
    host,
    port: opts.port ?? 0,
    ...(tls ? { tls } : {}),
    ...(opts.log ? { logLine: opts.log } : {}),
  });
  return {
    url,
    caPem: tls?.caPem ?? '',
    inspect,
    clock,
    faults: sim.faults,
    serve: inProcess(url),
    stop: () => close(server),
  };
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
