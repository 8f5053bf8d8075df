/**
 * One round of a protocol migration against the cluster: read the groups, the workloads, the
 * agent pods and the nodes; take the pure step (`migration.ts`); pause or resume groups and mirror
 * nodes (`mirror.ts`) as it says. Node writes are conditional on the resourceVersion read, so a
 * concurrent writer is never overwritten: the node is mirrored again next round.
 */

import type { ProtocolName } from '@capstan/reboot-protocol';
import { type Client, conditionalMergePatch, isConflict, type KubeObject } from '@capstan/runtime';
import { Node, Pod, type Pod as PodObject } from '@capstan/runtime/client';
import { type MigrationStatus, PROTOCOL_ANNOTATION } from './api/reboot-stack.js';
import { RebootGroupKind } from './decide/default-groups.js';
import { coordinatorSpeaker, type MigrationStep, stepMigration } from './decide/migration.js';
import { isEmptyPatch, mirrorNode, type NodeKeysPatch, removeProtocolKeys } from './decide/mirror.js';
import { completeAt, rolloutOf, type WorkloadObject } from './decide/rollout.js';

/** The workloads as read this round (undefined when absent). */
export interface MigrationWorkloads {
  version: string;
  coordinator?: WorkloadObject;
  agent?: WorkloadObject & {
    metadata: { namespace?: string };
    spec?: { selector?: { matchLabels?: Record<string, string> }; template?: unknown };
  };
}

const protocolArg = (pod: KubeObject): ProtocolName | undefined => {
  const fromAnnotation = pod.metadata.annotations?.[PROTOCOL_ANNOTATION];
  if (fromAnnotation === 'capstan' || fromAnnotation === 'fluo') return fromAnnotation;
  const args = ((pod as { spec?: { containers?: Array<{ args?: string[] }> } }).spec?.containers?.[0]?.args ??
    []) as string[];
  const arg = args.find((a) => a.startsWith('--protocol='))?.slice('--protocol='.length);
  return arg === 'capstan' || arg === 'fluo' ? arg : undefined;
};

/** The agent DaemonSet's pods now. */
async function agentPods(client: Client, agent: MigrationWorkloads['agent']): Promise<PodObject[]> {
  const labels = agent?.spec?.selector?.matchLabels;
  if (!agent || !labels) return [];
  const labelSelector = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const { items } = await client.list(Pod, {
    namespace: agent.metadata.namespace,
    labelSelector,
    direct: true,
  });
  return items;
}

/** Per node, the one protocol its agent pods speak, or undefined while none or two disagree. */
function agentSpeakers(pods: readonly PodObject[]): Map<string, ProtocolName | undefined> {
  const byNode = new Map<string, Set<ProtocolName | undefined>>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    if (!node) continue;
    byNode.set(node, (byNode.get(node) ?? new Set()).add(protocolArg(pod)));
  }
  const speakers = new Map<string, ProtocolName | undefined>();
  for (const [node, set] of byNode) speakers.set(node, set.size === 1 ? [...set][0] : undefined);
  return speakers;
}

const podReady = (pod: PodObject): boolean =>
  !pod.metadata.deletionTimestamp &&
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** A workload's rollout in words: its pods, how many are updated and available of how many wanted. */
function rolloutWords(workload: WorkloadObject | undefined): string {
  if (!workload) return 'not created yet';
  const r = rolloutOf(workload);
  const seen = r.observed ? '' : ' (its controller has not seen the change yet)';
  const total = workload.status?.[workload.kind === 'DaemonSet' ? 'currentNumberScheduled' : 'replicas'];
  return `${Number(total ?? 0)} pod(s), ${r.updated} of ${r.desired} updated, ${r.available} available${seen}`;
}

/** The nodes the agent DaemonSet's pod template selects (its tolerations take every taint). */
function agentNodes(agent: MigrationWorkloads['agent'], nodes: readonly KubeObject[]): string[] {
  const selector = (agent?.spec?.template as { spec?: { nodeSelector?: Record<string, string> } } | undefined)
    ?.spec?.nodeSelector;
  return nodes
    .filter((n) => Object.entries(selector ?? {}).every(([k, v]) => n.metadata.labels?.[k] === v))
    .map((n) => n.metadata.name as string)
    .sort();
}

/**
 * What the agents' rollout to `protocol` still lacks: the counts, the nodes where no agent pod is
 * ready at all (no pod, or one that never turns ready: what holds a rollout bounded by
 * maxUnavailable), and those still on the old protocol.
 */
function agentLag(
  agent: MigrationWorkloads['agent'],
  pods: readonly PodObject[],
  nodes: readonly KubeObject[],
  protocol: ProtocolName,
): string {
  const on = (node: string, ok: (p: PodObject) => boolean) =>
    pods.some((p) => p.spec?.nodeName === node && ok(p));
  const wanted = agentNodes(agent, nodes);
  const down = wanted.filter((n) => !on(n, podReady));
  const behind = wanted.filter(
    (n) => !down.includes(n) && !on(n, (p) => podReady(p) && protocolArg(p) === protocol),
  );
  const parts = [rolloutWords(agent)];
  if (down.length > 0) parts.push(`no ready agent pod on node ${down.join(', ')}`);
  if (behind.length > 0) parts.push(`not yet on ${protocol}: ${behind.join(', ')}`);
  return parts.join('; ');
}

function patchBody(patch: NodeKeysPatch) {
  return { annotations: patch.annotations, labels: patch.labels };
}

/** Runs one round of `migration`; returns the step taken and how many nodes were rewritten. */
export async function migrationRound(
  client: Client,
  migration: MigrationStatus,
  workloads: MigrationWorkloads,
): Promise<MigrationStep & { mirrored: number }> {
  const { items: groups } = await client.list(RebootGroupKind, { direct: true });
  const { items: nodes } = await client.list(Node, { direct: true });
  const pods = await agentPods(client, workloads.agent);
  const speakers = agentSpeakers(pods);
  const coordinator = workloads.coordinator;
  const patchesFor = (m: MigrationStatus) =>
    nodes.map((node) => ({
      node,
      patch: mirrorNode(
        { annotations: node.metadata.annotations ?? {}, labels: node.metadata.labels ?? {} },
        { coordinator: coordinatorSpeaker(m), agent: speakers.get(node.metadata.name as string) },
        m.from,
        m.to,
      ),
    }));
  const step = stepMigration({
    migration,
    groups: groups.map((g) => ({
      name: g.metadata.name as string,
      paused: g.spec?.paused === true,
      observed: (g.status?.observedGeneration ?? -1) >= (g.metadata.generation ?? 0),
    })),
    coordinatorStopped:
      coordinator !== undefined &&
      coordinator.spec?.replicas === 0 &&
      rolloutOf(coordinator).observed &&
      !(Number(coordinator.status?.replicas) > 0),
    switched: {
      coordinator: completeAt(coordinator && rolloutOf(coordinator), workloads.version, migration.to),
      agent: completeAt(workloads.agent && rolloutOf(workloads.agent), workloads.version, migration.to),
    },
    unmirrored: patchesFor(migration).filter((p) => !isEmptyPatch(p.patch)).length,
    lagging: {
      coordinator: rolloutWords(coordinator),
      agent: agentLag(workloads.agent, pods, nodes, migration.to),
    },
  });
  for (const name of step.pause) {
    await client.patch(RebootGroupKind, { name }, 'merge', { spec: { paused: true } });
  }
  const write = async (node: (typeof nodes)[number], patch: NodeKeysPatch): Promise<boolean> => {
    if (isEmptyPatch(patch)) return false;
    try {
      const body = conditionalMergePatch(node.metadata.resourceVersion, patchBody(patch));
      await client.patch(Node, { name: node.metadata.name as string }, 'merge', body);
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  };
  let mirrored = 0;
  if (step.mirror) {
    for (const { node, patch } of patchesFor(step.migration ?? migration))
      if (await write(node, patch)) mirrored++;
  }
  if (step.cleanup) {
    let left = 0;
    for (const node of nodes) {
      const keys = { annotations: node.metadata.annotations ?? {}, labels: node.metadata.labels ?? {} };
      const patch = removeProtocolKeys(keys, migration.from);
      if (!isEmptyPatch(patch) && !(await write(node, patch))) left++;
    }
    // A node written meanwhile keeps its old keys until the next round: the groups stay paused
    // (nothing new is granted) until no node has any.
    if (left > 0) {
      const waiting = `${left} node(s) written meanwhile still carry ${migration.from} keys`;
      return { ...step, resume: [], migration: { ...migration, phase: 'Resuming' }, waiting, mirrored };
    }
  }
  for (const name of step.resume) {
    await client.patch(RebootGroupKind, { name }, 'merge', { spec: { paused: false } });
  }
  return { ...step, mirrored };
}
