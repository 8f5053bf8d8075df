import type { KubeObject, ResourceType } from '../../api/types.js';
import type { FakeCluster } from '../fake-cluster.js';

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '');

/**
 * The objects whose owners are all gone, among `types`: what Kubernetes' garbage collector would
 * delete (background propagation). An owner of a kind outside `types` is taken to exist.
 */
export function orphans(
  cluster: FakeCluster,
  types: readonly ResourceType[],
): Array<[ResourceType, KubeObject]> {
  const uids = new Set<string>();
  const all = types.map((t) => [t, cluster.objects(t)] as const);
  for (const [, objects] of all) for (const o of objects) if (o.metadata.uid) uids.add(o.metadata.uid);
  const known = (apiVersion: string, kind: string) =>
    types.some((t) => t.kind === kind && t.group === groupOf(apiVersion));
  const out: Array<[ResourceType, KubeObject]> = [];
  for (const [type, objects] of all) {
    for (const o of objects) {
      const refs = o.metadata.ownerReferences ?? [];
      if (refs.length === 0 || o.metadata.deletionTimestamp) continue;
      if (refs.every((r) => known(r.apiVersion, r.kind) && !uids.has(r.uid))) out.push([type, o]);
    }
  }
  return out;
}

/** Deletes the {@link orphans}, as the garbage collector does; returns how many. */
export async function collectGarbage(cluster: FakeCluster, types: readonly ResourceType[]): Promise<number> {
  const found = orphans(cluster, types);
  for (const [type, o] of found) {
    await cluster.delete(type, { namespace: o.metadata.namespace, name: o.metadata.name ?? '' }).catch(() => {
      // Gone already: nothing to collect.
    });
  }
  return found.length;
}
