/**
 * One round of a protocol migration against the cluster: read the groups, the workloads, the
 * agent pods and the nodes; take the pure step (`migration.ts`); pause or resume groups and mirror
 * nodes (`mirror.ts`) as it says. Node writes are conditional on the resourceVersion read, so a
 * concurrent writer is never overwritten: the node is mirrored again next round.
 */

import type { ProtocolName } from '@capstan/reboot-protocol';
import { type Client, conditionalMergePatch, isConflict, type KubeObject } from '@capstan/runtime';
import { Node, Pod } from '@capstan/runtime/client';
import { type MigrationStatus, PROTOCOL_ANNOTATION } from './api/reboot-stack.js';
import { RebootGroupKind } from './default-groups.js';
import { coordinatorSpeaker, type MigrationStep, stepMigration } from './migration.js';
import { isEmptyPatch, mirrorNode, type NodeKeysPatch, removeProtocolKeys } from './mirror.js';
import { completeAt, rolloutOf, type WorkloadObject } from './rollout.js';

/** The workloads as read this round (undefined when absent). */
export interface MigrationWorkloads {
  version: string;
  coordinator?: WorkloadObject;
  agent?: WorkloadObject & {
    metadata: { namespace?: string };
    spec?: { selector?: { matchLabels?: Record<string, string> } };
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

/** Per node, the one protocol its agent pods speak, or undefined while none or two disagree. */
async function agentSpeakers(
  client: Client,
  agent: MigrationWorkloads['agent'],
): Promise<Map<string, ProtocolName | undefined>> {
  const speakers = new Map<string, ProtocolName | undefined>();
  const labels = agent?.spec?.selector?.matchLabels;
  if (!agent || !labels) return speakers;
  const labelSelector = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const { items } = await client.list(Pod, {
    namespace: agent.metadata.namespace,
    labelSelector,
    direct: true,
  });
  const byNode = new Map<string, Set<ProtocolName | undefined>>();
  for (const pod of items) {
    const node = pod.spec?.nodeName;
    if (!node) continue;
    byNode.set(node, (byNode.get(node) ?? new Set()).add(protocolArg(pod)));
  }
  for (const [node, set] of byNode) speakers.set(node, set.size === 1 ? [...set][0] : undefined);
  return speakers;
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
  const speakers = await agentSpeakers(client, workloads.agent);
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
    if (left > 0) return { ...step, resume: [], migration: { ...migration, phase: 'Resuming' }, mirrored };
  }
  for (const name of step.resume) {
    await client.patch(RebootGroupKind, { name }, 'merge', { spec: { paused: false } });
  }
  return { ...step, mirrored };
}
