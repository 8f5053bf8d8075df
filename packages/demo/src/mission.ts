/**
 * The demo's mission, end to end: act 1 provisions a cluster on Cloud Director (vcdsim) through
 * Cluster API and capvcd; act 2 has the version operator install the coordinator and the agents
 * in it; act 3 stages an OS update on every node and watches the coordinator and agents reboot
 * them within budget. `only` runs act 1 alone, or acts 2 and 3 on a fresh local cluster whose kwok
 * nodes are created directly.
 */
import { createWriteStream } from 'node:fs';
import { ControlPlane } from '@capstan/envtest';
import type { ProtocolName } from '@capstan/reboot-protocol';
import { createLogger } from '@capstan/runtime/manager';
import { ActContext } from './act.js';
import { type ClusterFacts, provisionCluster } from './cluster-act.js';
import { type InstallFacts, installOperators } from './install-act.js';
import {
  CONTROL_PLANE_LABEL,
  type FleetNode,
  FROM_VERSION,
  type RebootFacts,
  TO_VERSION,
  updateFleet,
} from './reboot-act.js';
import { checkMission, type MissionSummary } from './summary.js';
import { LiveView } from './view.js';

/** Options of {@link runMission}. */
export interface MissionOptions {
  /** Run one part only: act 1 (`cluster`), or acts 2 and 3 on a local cluster (`reboot`). */
  only?: 'cluster' | 'reboot';
  /** Annotation protocol of the stack, coordinator and agents; default `capstan`. */
  protocol?: ProtocolName;
  /** How long each reboot keeps its node down; default 5 s. */
  rebootDownMs?: number;
  /** Give up (and fail) this long after the first control plane is up; default 8 minutes. */
  timeoutMs?: number;
  /** Where the view goes; default standard output. */
  out?: NodeJS.WriteStream;
  /** Redraw tables in place (default: when `out` is a terminal) or print one line per change. */
  interactive?: boolean;
  /** Where the operators' JSON logs go. */
  logFile: string;
  /** Stops the demo early (it then fails). */
  signal?: AbortSignal;
}

/** The cluster's KubeadmControlPlane replicas, as a highly available control plane has. */
export const CONTROL_PLANES = 3;
/** Workers of the MachineDeployment (and of `--only reboot`'s local cluster). */
export const WORKERS = 5;
/** The workers' budget the RebootStack asks for: two of five at once. */
export const WORKERS_MAX_UNAVAILABLE = '40%';
const osImage = `Flatcar Container Linux ${FROM_VERSION}`;

/** Which acts this run plays: act 1 (`cluster`), acts 2 and 3 (`reboot`), or all. */
type Acts = { cluster: boolean; reboot: boolean };

/** What the acts found, kept as each act ends so a failed run still reports what got done. */
interface MissionFacts {
  cluster?: ClusterFacts;
  install?: InstallFacts;
  reboot?: RebootFacts;
}

/** Runs the mission to its end; resolves with the checked summary (it never throws for a failed run). */
export async function runMission(options: MissionOptions): Promise<MissionSummary> {
  const out = options.out ?? process.stdout;
  const protocol = options.protocol ?? 'capstan';
  const acts = { cluster: options.only !== 'reboot', reboot: options.only !== 'cluster' };
  const title = missionTitle(acts, protocol);
  const view = new LiveView(out, `Capstan demo: ${title}`, options.interactive ?? Boolean(out.isTTY));
  const logStream = createWriteStream(options.logFile);
  const logger = createLogger({ level: 'info', destination: logStream });
  const ctx = new ActContext(view, logger, options.timeoutMs ?? 8 * 60_000, options.signal);
  const facts: MissionFacts = {};
  const errors: string[] = [];
  let elapsedMs = 0;
  try {
    // An interrupt ends the run at once, whatever step an act is in (a terminal's Ctrl-C has also
    // reached the control planes' processes, so a request in flight may never be answered).
    await Promise.race([playActs(ctx, acts, { ...options, protocol }, facts), ctx.interrupted]);
  } catch (err) {
    errors.push(options.signal?.aborted ? 'interrupted' : err instanceof Error ? err.message : String(err));
  } finally {
    elapsedMs = ctx.elapsed();
    view.settle();
    await ctx.end();
    await new Promise((resolve) => logStream.end(resolve));
  }
  for (const f of ctx.faults) if (!errors.includes(f)) errors.push(f);
  return checkMission({
    acts,
    expectedMachines: WORKERS + CONTROL_PLANES,
    toVersion: TO_VERSION,
    ...facts,
    errors,
    elapsedMs,
  });
}

/** The view's title: what this run will show. */
function missionTitle(acts: Acts, protocol: ProtocolName): string {
  return [
    acts.cluster
      ? `a cluster on Cloud Director (${CONTROL_PLANES} control-plane machines of a KubeadmControlPlane + ${WORKERS} workers)`
      : '',
    acts.reboot ? `operators installed, nodes updated (${protocol} protocol)` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** Plays the acts in order, recording each act's facts into `facts` as it ends. */
async function playActs(
  ctx: ActContext,
  acts: Acts,
  options: MissionOptions & { protocol: ProtocolName },
  facts: MissionFacts,
): Promise<void> {
  let plane: ControlPlane | undefined;
  let fleet: FleetNode[] = [];
  if (acts.cluster) {
    const provisioned = await provisionCluster(ctx, {
      controlPlanes: CONTROL_PLANES,
      workers: WORKERS,
      osImage,
    });
    facts.cluster = provisioned.facts;
    plane = provisioned.workload;
    fleet = provisioned.facts.nodes.map((n) => ({ name: n.name, controlPlane: n.controlPlane }));
  }
  if (!acts.reboot) return;
  if (!plane) ({ plane, fleet } = await startLocalCluster(ctx));
  fleet.sort((a, b) => Number(b.controlPlane) - Number(a.controlPlane) || a.name.localeCompare(b.name));
  ctx.checkInterrupt();
  const install = await installOperators(ctx, plane, {
    protocol: options.protocol,
    workersMaxUnavailable: WORKERS_MAX_UNAVAILABLE,
  });
  facts.install = install;
  ctx.checkInterrupt();
  facts.reboot = await updateFleet(ctx, plane, fleet, install.groups, {
    protocol: options.protocol,
    rebootDownMs: options.rebootDownMs ?? 5_000,
  });
}

/** `--only reboot`'s cluster: a local control plane with one control-plane and the workers as kwok nodes. */
async function startLocalCluster(ctx: ActContext): Promise<{ plane: ControlPlane; fleet: FleetNode[] }> {
  ctx.view.say(
    'Starting a local cluster (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)...',
  );
  const plane = await ControlPlane.start({ controllerManager: true, scheduler: true, kwok: true });
  ctx.onEnd(() => plane.stop());
  ctx.startClock();
  const fleet: FleetNode[] = [
    { name: 'control-plane-0', controlPlane: true },
    ...Array.from({ length: WORKERS }, (_, i) => ({ name: `worker-${i}`, controlPlane: false })),
  ];
  await plane.addNodes(
    fleet.map((n) => ({
      name: n.name,
      labels: (n.controlPlane ? { [CONTROL_PLANE_LABEL]: '' } : {}) as Record<string, string>,
      osImage,
    })),
  );
  ctx.view.say(`  up at ${plane.server}; ${fleet.length} kwok nodes: ${fleet.map((n) => n.name).join(', ')}`);
  return { plane, fleet };
}
