/** Nodes and RebootGroups on the runtime's FakeCluster, as the reconciler tests need them. */
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Node } from '@capstan/runtime/client';
import type { FakeCluster } from '@capstan/runtime/testing';
import { type RebootGroup, RebootGroupType } from '../src/index.js';

/** A Ready node with these labels and annotations. */
export async function addReadyNode(
  fake: FakeCluster,
  name: string,
  labels: Record<string, string>,
  annotations: Record<string, string> = {},
): Promise<void> {
  fake.seed(Node, { metadata: { name, labels, annotations } });
  await fake.patch(
    Node,
    { name },
    'merge',
    { status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { bootID: `${name}-boot` } } },
    { subresource: 'status' },
  );
}

/** A Ready node whose agent asks for a reboot, first seen asking at `requestedAt`. */
export function addAskingNode(
  fake: FakeCluster,
  name: string,
  labels: Record<string, string>,
  requestedAt: number,
): Promise<void> {
  return addReadyNode(fake, name, labels, {
    [capstanProtocol.annotations.rebootNeeded]: 'true',
    [coordinatorKeys.requestedAt]: new Date(requestedAt).toISOString(),
  });
}

/** A RebootGroup named `tier` selecting the nodes labelled `tier=<tier>`, with `spec` besides. */
export function addTierGroup(
  fake: FakeCluster,
  tier: string,
  spec: Omit<RebootGroup['spec'], 'nodeSelector'>,
): void {
  fake.seed(RebootGroupType, {
    metadata: { name: tier },
    spec: { ...spec, nodeSelector: { matchLabels: { tier } } },
  } as RebootGroup);
}
