/**
 * The inspection API, for tests and the demo: what the simulated cloud holds, the task history and
 * the request log. Programmatic (returned by `startVcdSim`) and over HTTP under `/inspect/`
 * (outside `/api` and `/cloudapi`, no authentication).
 */
import { poolSize } from '../model/ippool.js';
import type { Vm, World } from '../model/world.js';
import type { BootHook, Simulator } from '../simulator.js';
import type { Task } from '../tasks/runner.js';
import type { LogEntry } from './log.js';

/** Maps become plain objects so snapshots serialise to JSON. */
function plain(v: unknown): unknown {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, plain(x)]));
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** A JSON-ready copy of every object in the world. */
export function snapshot(world: World): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(world))
    out[k] = v instanceof Map ? [...v.values()].map(plain) : plain(v);
  return out;
}

/** Address usage of an org VDC network's static pool. */
export interface PoolUsage {
  network: string;
  size: number;
  allocated: Record<string, string>;
}

/** What a test can ask the running simulator. */
export interface Inspect {
  /** The live world (read it; change it only if you mean to). */
  readonly world: World;
  /** A JSON-ready copy of every object. */
  objects(): Record<string, unknown>;
  /** Every task since start, oldest first. */
  tasks(): Task[];
  /** Tasks not yet in success, error or aborted. */
  unfinishedTasks(): Task[];
  /** The request log, oldest first. */
  requests(): LogEntry[];
  /** Request counts keyed `METHOD /route/{pattern}` (default) or `METHOD /concrete/path`. */
  counts(by?: 'route' | 'path'): Record<string, number>;
  /**
   * The requests about one VM (by id, URN or name; deleted VMs by id): its own paths and the
   * GETs of tasks it owns. This is what a provider spent on that machine.
   */
  requestsFor(vmIdOrName: string): LogEntry[];
  /** Total requests served. */
  requestTotal(): number;
  /** Every route the simulator serves, `METHOD /route/{pattern}` as in {@link Inspect.counts}. */
  routes(): string[];
  /** Forgets the request log (counts start again from zero). */
  resetRequests(): void;
  /** A VM by id, URN or name. */
  vm(idOrName: string): Vm | undefined;
  /** Static pool usage of an org VDC network (by name). */
  pool(networkName: string): PoolUsage | undefined;
  /** Says whether a VM's guest serves its ports (drives load balancer member health). */
  setServing(vmIdOrName: string, serving: boolean): void;
  /** Adds a boot hook; returns a function that removes it. */
  onBoot(hook: BootHook): () => void;
  /** Errors thrown by boot hooks or unexpected handler failures (should stay empty). */
  errors(): { where: string; error: unknown }[];
  /** Live session count. */
  sessions(): number;
}

/** The programmatic inspection API over a simulator. */
export function inspector(sim: Simulator): Inspect {
  const w = sim.world;
  const vm = (key: string): Vm | undefined => {
    const id = key.replace(/^urn:vcloud:vm:/, '');
    return w.vms.get(id) ?? [...w.vms.values()].find((v) => v.name === key);
  };
  return {
    world: w,
    objects: () => snapshot(w),
    tasks: () => [...sim.tasks.tasks.values()],
    unfinishedTasks: () => sim.tasks.unfinished(),
    requests: () => [...sim.log.entries],
    counts: (by = 'route') => sim.log.counts(by),
    requestsFor: (key) => {
      const id = vm(key)?.id ?? key.replace(/^urn:vcloud:vm:/, '');
      const ids = [
        id,
        ...[...sim.tasks.tasks.values()]
          .filter((t) => t.owner.urn === `urn:vcloud:vm:${id}`)
          .map((t) => t.id),
      ];
      return sim.log.entries.filter((e) => ids.some((x) => e.path.includes(x)));
    },
    requestTotal: () => sim.log.total,
    routes: () => [...sim.routes],
    resetRequests: () => sim.log.reset(),
    vm,
    pool: (name) => {
      const n = [...w.networks.values()].find((x) => x.name === name);
      return n && { network: n.name, size: poolSize(n.ipRanges), allocated: Object.fromEntries(n.allocated) };
    },
    setServing: (key, serving) => {
      const v = vm(key);
      if (!v) throw new Error(`no VM ${key}`);
      v.serving = serving && v.status === 4 && v.toolsRunning;
    },
    onBoot: (hook) => {
      sim.bootHooks.push(hook);
      return () => {
        const i = sim.bootHooks.indexOf(hook);
        if (i >= 0) sim.bootHooks.splice(i, 1);
      };
    },
    errors: () => [...sim.failures],
    sessions: () => sim.auth.count,
  };
}
