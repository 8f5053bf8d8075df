/**
 * The KUBECONFIG merge of client-go's loading rules: the files are read in order; for clusters,
 * users and contexts the first file to define a name wins (entries are never merged field by
 * field), and `current-context` comes from the first file that sets one.
 */
import type { KubeConfigDocument } from './kubeconfig-parse.js';

/** Merges documents in KUBECONFIG order; see the file comment. */
export function mergeKubeConfigs(documents: readonly KubeConfigDocument[]): KubeConfigDocument {
  const merged: KubeConfigDocument = { clusters: [], users: [], contexts: [] };
  for (const doc of documents) {
    addNew(merged.clusters, doc.clusters);
    addNew(merged.users, doc.users);
    addNew(merged.contexts, doc.contexts);
    if (merged.currentContext === undefined && doc.currentContext) merged.currentContext = doc.currentContext;
  }
  return merged;
}

function addNew<T extends { name: string }>(into: T[], entries: readonly T[]): void {
  const known = new Set(into.map((e) => e.name));
  for (const entry of entries) if (!known.has(entry.name)) into.push(entry);
}
