/**
 * Draining a node, the part every drainer shares (kubectl drain's rules): which of a node's pods
 * to evict (all but DaemonSet pods, whose controller would put them straight back, and static
 * pods' mirrors, which the API cannot evict), which are still going, and one eviction through the
 * eviction subresource, so PodDisruptionBudgets are honoured. The update agent drains its own
 * node with it; the reboot coordinator drains the nodes of clients that have no agent.
 */

import { isConflict, isNotFound, isTooManyRequests } from '../api/errors.js';
import { Pod } from '../client/builtin.js';
import type { Client } from '../client/client.js';

/** The annotation the kubelet puts on a static pod's mirror. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** What a drain needs to know about one pod. */
export interface PodDrainFacts {
  namespace: string;
  name: string;
  uid: string;
  /** Controlled by a DaemonSet: never evicted (its controller would put it straight back). */
  daemonSet: boolean;
  /** A static pod's mirror (`kubernetes.io/config.mirror`): cannot be evicted through the API. */
  mirror: boolean;
  /** Has a deletionTimestamp: evicted (or deleted) already, waiting for it to be gone. */
  terminating: boolean;
}

/** A node's pods split for a drain. */
export interface DrainPlan {
  evict: PodDrainFacts[];
  terminating: PodDrainFacts[];
  skipped: PodDrainFacts[];
}

/** The drain facts of a Pod as the API returns it. */
export function podDrainFacts(pod: Pod): PodDrainFacts {
  return {
    namespace: pod.metadata.namespace ?? '',
    name: pod.metadata.name ?? '',
    uid: pod.metadata.uid ?? '',
    daemonSet: (pod.metadata.ownerReferences ?? []).some(
      (r) => r.controller === true && r.kind === 'DaemonSet',
    ),
    mirror: pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined,
    terminating: pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null,
  };
}

/** Splits a node's pods for a drain: which to evict, which are still going, which are skipped. */
export function drainPlan(pods: readonly PodDrainFacts[]): DrainPlan {
  const plan: DrainPlan = { evict: [], terminating: [], skipped: [] };
  for (const pod of pods) {
    if (pod.daemonSet || pod.mirror) plan.skipped.push(pod);
    else if (pod.terminating) plan.terminating.push(pod);
    else plan.evict.push(pod);
  }
  return plan;
}

/** The drain facts of every pod bound to `nodeName`. */
export async function nodePodDrainFacts(client: Client, nodeName: string): Promise<PodDrainFacts[]> {
  const { items } = await client.list(Pod, { fieldSelector: `spec.nodeName=${nodeName}` });
  return items.map(podDrainFacts);
}

/**
 * How one eviction ended: `evicted`; `gone` (already gone, or replaced by a pod of the same name:
 * the uid precondition failed); `blocked` (429: a disruption budget allows none now); `error`.
 */
export type EvictionResult = { result: 'evicted' | 'gone' | 'blocked' } | { result: 'error'; error: unknown };

/** Evicts one pod, preconditioned on its uid; never throws. */
export async function evictPod(
  client: Client,
  pod: PodDrainFacts,
  gracePeriodSeconds?: number,
): Promise<EvictionResult> {
  try {
    await client.evict(
      { namespace: pod.namespace, name: pod.name },
      {
        preconditions: { uid: pod.uid },
        ...(gracePeriodSeconds !== undefined && gracePeriodSeconds >= 0 ? { gracePeriodSeconds } : {}),
      },
    );
    return { result: 'evicted' };
  } catch (error) {
    if (isNotFound(error) || isConflict(error)) return { result: 'gone' };
    if (isTooManyRequests(error)) return { result: 'blocked' };
    return { result: 'error', error };
  }
}
