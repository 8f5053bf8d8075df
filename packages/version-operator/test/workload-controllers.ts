/**
 * kube-controller-manager's part in the version operator's conformance scenario: the coordinator
 * Deployment's and the agent DaemonSet's pods, rolled to each template in turn (a Deployment one
 * pod at a time, a DaemonSet as its rolling update's maxUnavailable allows) and their status
 * written as the real controllers write it. The pods are kept as data in a ConfigMap, since one
 * scenario object serves every run.
 */
import { ConfigMap, DaemonSet, Deployment } from '@capstan/runtime/client';
import type { ConformanceUser, FakeCluster } from '@capstan/runtime/testing';
import { stackLabels } from '../src/index.js';

export const NAMESPACE = 'capstan-system';
export const COORDINATOR = { namespace: NAMESPACE, name: 'capstan-coordinator' };
export const AGENT = { namespace: NAMESPACE, name: 'capstan-agent' };
/** The nodes the agent DaemonSet runs on. */
export const NODES = 4;
const PODS = { namespace: 'default', name: 'simulated-pods' };
/** A pod's step (created, or made ready) takes this long. */
const STEP_MS = 1_000;

/** One simulated pod: the template it was made from, its version, and whether it is ready. */
export interface SimPod {
  template: string;
  version: string;
  ready: boolean;
}

type Component = 'coordinator' | 'agent';
type Workload = Deployment | DaemonSet;

export function podsOf(cluster: FakeCluster, component: Component): SimPod[] {
  const raw = cluster.getObject(ConfigMap, PODS)?.data?.[component];
  return raw ? (JSON.parse(raw) as SimPod[]) : [];
}

const workloadOf = (cluster: FakeCluster, component: Component): Workload | undefined =>
  component === 'coordinator'
    ? cluster.getObject(Deployment, COORDINATOR)
    : cluster.getObject(DaemonSet, AGENT);

/** The version a workload's pod template carries. */
export const templateVersion = (w: Workload | undefined) =>
  w?.spec?.template?.metadata?.annotations?.[stackLabels.version];

/** The rolling update's bound of a DaemonSet (1 when it names none). */
export function maxUnavailableOf(ds: DaemonSet | undefined, nodes = NODES): number {
  const strategy = ds?.spec?.updateStrategy as
    | { rollingUpdate?: { maxUnavailable?: number | string } }
    | undefined;
  const raw = strategy?.rollingUpdate?.maxUnavailable ?? 1;
  if (typeof raw === 'number') return raw;
  const percent = /^(\d+)%$/.exec(raw);
  return percent ? Math.max(1, Math.floor((Number(percent[1]) * nodes) / 100)) : Number(raw);
}

/** One step of a workload's rollout: the pods it has next, from the pods it has now. */
export function rollStep(
  pods: readonly SimPod[],
  want: SimPod,
  desired: number,
  maxUnavailable: number,
): SimPod[] {
  const next = pods.slice(0, desired).map((p) => (p.template === want.template ? { ...p, ready: true } : p));
  while (next.length < desired) next.push({ ...want, ready: false });
  let unavailable = next.filter((p) => !p.ready).length;
  for (let i = 0; i < next.length && unavailable < maxUnavailable; i++) {
    const pod = next[i] as SimPod;
    if (pod.template !== want.template && pod.ready) {
      next[i] = { ...want, ready: false };
      unavailable++;
    }
  }
  return next;
}

function statusOf(component: Component, w: Workload, pods: readonly SimPod[], template: string) {
  const updated = pods.filter((p) => p.template === template).length;
  const ready = pods.filter((p) => p.ready).length;
  const observedGeneration = w.metadata.generation ?? 1;
  return component === 'coordinator'
    ? {
        observedGeneration,
        replicas: pods.length,
        updatedReplicas: updated,
        readyReplicas: ready,
        availableReplicas: ready,
      }
    : {
        observedGeneration,
        desiredNumberScheduled: NODES,
        currentNumberScheduled: pods.length,
        updatedNumberScheduled: updated,
        numberReady: ready,
        numberAvailable: ready,
      };
}

let lastStep = Number.NEGATIVE_INFINITY;

/** Rolls both workloads one step (every {@link STEP_MS}) and writes their status. */
export async function controllersStep({ client, cluster, clock }: ConformanceUser): Promise<void> {
  if (clock.now() - lastStep < STEP_MS && clock.now() >= lastStep) return;
  lastStep = clock.now();
  const data: Record<string, string> = {};
  for (const component of ['coordinator', 'agent'] as const) {
    const w = workloadOf(cluster, component);
    const pods = podsOf(cluster, component);
    if (!w) {
      data[component] = '[]';
      continue;
    }
    const template = JSON.stringify(w.spec?.template ?? {});
    const want: SimPod = { template, version: templateVersion(w) ?? '', ready: false };
    const desired = component === 'coordinator' ? ((w as Deployment).spec?.replicas ?? 1) : NODES;
    const bound = component === 'coordinator' ? 1 : maxUnavailableOf(w as DaemonSet);
    const next = rollStep(pods, want, desired, bound);
    data[component] = JSON.stringify(next);
    const type = component === 'coordinator' ? Deployment : DaemonSet;
    const key = component === 'coordinator' ? COORDINATOR : AGENT;
    const status = statusOf(component, w, next, template);
    if (JSON.stringify({ ...w.status, ...status }) !== JSON.stringify(w.status))
      await client.patch(type as typeof Deployment, key, 'merge', { status }, { subresource: 'status' });
  }
  await client.patch(ConfigMap, PODS, 'merge', { data });
}

/** The pods' ConfigMap, empty; and the clock of the step reset for a new run. */
export async function createPods({ client }: ConformanceUser): Promise<void> {
  lastStep = Number.NEGATIVE_INFINITY;
  await client.create(ConfigMap, { metadata: PODS, data: { coordinator: '[]', agent: '[]' } });
}
