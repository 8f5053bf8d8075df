/**
 * Draining a node, the part every drainer shares (kubectl drain's rules): which of a node's pods
 * to evict (all but DaemonSet pods, whose controller would put them straight back, and static
 * pods' mirrors, which the API cannot evict), which are still going, and one eviction through the
 * eviction subresource, so PodDisruptionBudgets are honoured. The update agent drains its own
 * node with it; the reboot coordinator drains the nodes of clients that have no agent.
 */

import { isConflict, isNotFound, isTooManyRequests } from '../api/errors.js';
import { type BackoffCurve, backoffDelay } from '../backoff-delay.js';
import { Pod } from '../client/builtin.js';
import type { Client } from '../client/client.js';
import { type Clock, settlesWithin } from '../clock.js';

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

/**
 * At most `limit` calls of `fn` in flight over `items`, each item once, in order of start; resolves
 * when all have settled (`fn` must not reject: each item's outcome is its own business).
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  if (!(limit >= 1)) throw new RangeError(`parallelism must be at least 1, got ${limit}`);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Per-pod eviction backoff: a pod whose eviction was refused (429) or failed waits
 * `backoffDelay(its refusals)` before it is tried again, while the node's other pods go on; an
 * eviction that went through forgets the pod.
 */
export class EvictionBackoff {
  private readonly pods = new Map<string, { next: number; refusals: number }>();

  constructor(private readonly curve: BackoffCurve) {}

  /** Whether `pod` may be evicted at `now`. */
  isDue(pod: PodDrainFacts, now: number): boolean {
    return now >= (this.pods.get(pod.uid)?.next ?? 0);
  }

  /** Records how an eviction of `pod` ended at `now`. */
  record(pod: PodDrainFacts, result: EvictionResult['result'], now: number): void {
    if (result === 'evicted' || result === 'gone') {
      this.pods.delete(pod.uid);
      return;
    }
    const refusals = this.pods.get(pod.uid)?.refusals ?? 0;
    this.pods.set(pod.uid, { next: now + backoffDelay(refusals, this.curve), refusals: refusals + 1 });
  }

  /** The earliest time one of `pods` may be tried again; `undefined` when one is due now or none waits. */
  nextAt(pods: readonly PodDrainFacts[], now: number): number | undefined {
    let next: number | undefined;
    for (const pod of pods) {
      const at = this.pods.get(pod.uid)?.next ?? 0;
      if (at <= now) return undefined;
      next = next === undefined ? at : Math.min(next, at);
    }
    return next;
  }

  /** Forgets every pod not in `pods` (gone, or a drain over), so the memory stays bounded. */
  retain(pods: readonly PodDrainFacts[]): void {
    const keep = new Set(pods.map((p) => p.uid));
    for (const uid of this.pods.keys()) if (!keep.has(uid)) this.pods.delete(uid);
  }
}

/** How a round of evictions is run. */
export interface EvictPodsOptions {
  /** The clock the time limits and the backoff read. */
  clock: Clock;
  /** Evictions in flight at once; default 10 (kubectl drain sends them all at once). */
  parallelism?: number;
  /** One eviction's time limit, then it counts as an error (retried later); default 30 s. */
  timeoutMs?: number;
  /** Grace period given to evicted pods, in seconds; negative or absent uses each pod's own. */
  gracePeriodSeconds?: number;
  /** Per-pod backoff: pods not due are passed over, and every outcome is recorded in it. */
  backoff?: EvictionBackoff;
}

/** One pod's eviction in a round. */
export interface PodEviction {
  pod: PodDrainFacts;
  outcome: EvictionResult;
}

/**
 * Evicts `pods` once each, at most `parallelism` at a time, each within `timeoutMs` (a hung
 * request counts as an error and is not waited for), passing over pods the backoff holds back.
 * Never throws: each pod's outcome is returned, in the order the pods were given.
 */
export async function evictPods(
  client: Client,
  pods: readonly PodDrainFacts[],
  options: EvictPodsOptions,
): Promise<PodEviction[]> {
  const { clock, backoff } = options;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const due = backoff ? pods.filter((p) => backoff.isDue(p, clock.now())) : pods;
  const outcomes = new Map<PodDrainFacts, EvictionResult>();
  await forEachBounded(due, options.parallelism ?? 10, async (pod) => {
    const eviction = evictPod(client, pod, options.gracePeriodSeconds);
    const outcome: EvictionResult = (await settlesWithin(clock, eviction, timeoutMs))
      ? await eviction
      : { result: 'error', error: new Error(`the eviction did not answer within ${timeoutMs} ms`) };
    backoff?.record(pod, outcome.result, clock.now());
    outcomes.set(pod, outcome);
  });
  return due.map((pod) => ({ pod, outcome: outcomes.get(pod) as EvictionResult }));
}
