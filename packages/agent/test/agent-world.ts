/**
 * The world around one node's agent, for its conformance scenarios: the machine (its updates,
 * its boot count, its reboots), the coordinator (grants fenced to the boot, withdrawn once the
 * node is back or its agent reports a failure) and a workload pod on the node. They are played
 * through the API between the harness's ticks, never perturbed; their state lives in the cluster
 * (a ConfigMap for the machine), since one scenario object serves every run.
 */
import { AGENT_FAILURE_ANNOTATION, capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import type { TimerHandle } from '@capstan/runtime';
import { ConfigMap, Node, Pod } from '@capstan/runtime/client';
import type { ConformanceUser, FakeCluster } from '@capstan/runtime/testing';
import type { Rebooter } from '../src/reconciler.js';
import type { RebootNeededSource, SourceStatus } from '../src/sources/source.js';

export const NODE = 'n1';
const k = capstanProtocol.annotations;
const MACHINE = { namespace: 'default', name: `machine-${NODE}` };
/** A machine takes this long to go down once its reboot is accepted. */
const SHUTDOWN_MS = 1_000;
/** How often the fake source looks at the machine (update_engine signals; this polls). */
const SOURCE_POLL_MS = 500;
/** The finalizer that keeps a "stuck" workload pod terminating: its drain cannot finish. */
export const STUCK = 'test.capstan.dev/stuck';

/** The machine's state, as its ConfigMap keeps it. */
export interface Machine {
  /** Completed reboots. */
  boots: number;
  /** Whether an update waits for a reboot. */
  staged: boolean;
  /** Updates staged so far. */
  updates: number;
  /** When the accepted reboot was asked (virtual ms), or -1. */
  askedAt: number;
  /** Reboots asked while a workload pod was still on the node, or the node was schedulable. */
  undrained: number;
  /** Workload pods created so far (their names). */
  pods: number;
}

export function machineOf(cluster: FakeCluster): Machine {
  const d = cluster.getObject(ConfigMap, MACHINE)?.data ?? {};
  const n = (key: string, dflt = 0) => Number(d[key] ?? dflt);
  return {
    boots: n('boots'),
    staged: d.staged === 'true',
    updates: n('updates'),
    askedAt: n('askedAt', -1),
    undrained: n('undrained'),
    pods: n('pods'),
  };
}

async function saveMachine({ client }: ConformanceUser, m: Partial<Machine>): Promise<void> {
  const data = Object.fromEntries(Object.entries(m).map(([key, v]) => [key, String(v)]));
  await client.patch(ConfigMap, MACHINE, 'merge', { data });
}

export const bootIdOf = (boots: number) => `${NODE}-boot-${boots}`;

function nodeStatus(boots: number) {
  return {
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      nodeInfo: { bootID: bootIdOf(boots), machineID: `machine-${NODE}` },
    },
  };
}

/** Pods on the node that a drain must evict (none here is a DaemonSet's), terminating ones included. */
export const workloadPods = (cluster: FakeCluster) =>
  cluster.objects(Pod).filter((p) => p.spec?.nodeName === NODE);

/** The node, its machine ConfigMap, and (`adminCordon`) the administrator's cordon. */
export async function createWorld(user: ConformanceUser, options: { adminCordon: boolean }): Promise<void> {
  const { client } = user;
  await client.create(ConfigMap, { metadata: MACHINE, data: {} });
  await client.create(Node, {
    metadata: { name: NODE },
    spec: options.adminCordon ? { unschedulable: true } : {},
  });
  await client.patch(Node, { name: NODE }, 'merge', nodeStatus(0), { subresource: 'status' });
}

/** The user's action: an update is downloaded and waits for a reboot. */
export async function stageUpdate(user: ConformanceUser): Promise<void> {
  const m = machineOf(user.cluster);
  if (!m.staged) await saveMachine(user, { staged: true, updates: m.updates + 1 });
}

/** One step of the machine: an accepted reboot takes the node down and the agent with it. */
async function machineStep(user: ConformanceUser): Promise<void> {
  const m = machineOf(user.cluster);
  if (m.askedAt < 0 || user.clock.now() - m.askedAt < SHUTDOWN_MS) return;
  // The new boot ID is posted before the agent starts again (as the agent's boot ID file is).
  await user.client.patch(Node, { name: NODE }, 'merge', nodeStatus(m.boots + 1), { subresource: 'status' });
  await saveMachine(user, { boots: m.boots + 1, staged: false, askedAt: -1 });
  user.killController();
}

/** One step of the coordinator: grant a node that asks, withdraw once it is back or has failed. */
async function coordinatorStep({ client, cluster }: ConformanceUser): Promise<void> {
  const node = cluster.getObject(Node, { name: NODE });
  const a = node?.metadata.annotations ?? {};
  const bootId = node?.status?.nodeInfo?.bootID ?? '';
  const failed = a[AGENT_FAILURE_ANNOTATION] !== undefined;
  const granted = a[k.rebootOk] === 'true';
  if (!granted && a[k.rebootNeeded] === 'true' && !failed) {
    await client.patch(Node, { name: NODE }, 'merge', {
      metadata: { annotations: { [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: bootId } },
    });
  } else if (granted) {
    const back =
      a[coordinatorKeys.grantedBootId] !== bootId &&
      a[k.rebootInProgress] !== 'true' &&
      a[k.rebootNeeded] !== 'true';
    const gaveUp = failed && a[k.rebootInProgress] !== 'true';
    if (back || gaveUp)
      await client.patch(Node, { name: NODE }, 'merge', {
        metadata: { annotations: { [k.rebootOk]: null, [coordinatorKeys.grantedBootId]: null } },
      });
  }
}

/** A ReplicaSet's part: one workload pod on the node while it is schedulable. */
async function workloadStep(user: ConformanceUser, stuck: boolean): Promise<void> {
  const node = user.cluster.getObject(Node, { name: NODE });
  if (!node || node.spec?.unschedulable || workloadPods(user.cluster).length > 0) return;
  const m = machineOf(user.cluster);
  await user.client.create(Pod, {
    metadata: { name: `web-${m.pods}`, namespace: 'default', ...(stuck ? { finalizers: [STUCK] } : {}) },
    spec: { nodeName: NODE, containers: [{ name: 'web', image: 'example/web' }] },
  });
  await saveMachine(user, { pods: m.pods + 1 });
}

/** Everything but the agent, every 100 ms of virtual time. */
export async function worldStep(user: ConformanceUser, options: { stuckPods: boolean }): Promise<void> {
  await machineStep(user);
  await coordinatorStep(user);
  await workloadStep(user, options.stuckPods);
}

/**
 * The machine's reboot, as logind takes it: accepted, the machine goes down a second later; asked
 * again while it goes down, nothing more happens. What the node looked like when it was asked is
 * recorded for the invariants.
 */
export function machineRebooter(user: () => ConformanceUser): Rebooter {
  return {
    reboot: async () => {
      const u = user();
      const m = machineOf(u.cluster);
      const node = u.cluster.getObject(Node, { name: NODE });
      const drained = workloadPods(u.cluster).length === 0 && node?.spec?.unschedulable === true;
      await saveMachine(u, {
        askedAt: m.askedAt >= 0 ? m.askedAt : u.clock.now(),
        undrained: m.undrained + (drained ? 0 : 1),
      });
    },
  };
}

/** update_engine's part: whether an update is staged, looked at every half second. */
export class MachineSource implements RebootNeededSource {
  private timer: TimerHandle | undefined;
  private last: boolean | undefined;

  constructor(private readonly user: () => ConformanceUser) {}

  async start(onChange: (status: SourceStatus) => void): Promise<void> {
    const look = () => {
      const staged = machineOf(this.user().cluster).staged;
      if (staged !== this.last) onChange({ rebootNeeded: staged });
      this.last = staged;
      this.timer = this.user().clock.setTimeout(look, SOURCE_POLL_MS);
    };
    look();
  }

  async stop(): Promise<void> {
    if (this.timer) this.user().clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
