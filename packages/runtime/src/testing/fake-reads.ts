/** The fake cluster's lists: selectors, namespaces, consistent pages with continue tokens, exact revisions. */
import { apiError } from '../api/errors.js';
import type { KubeObject, ListOptions, ListResult, ResourceType } from '../api/types.js';
import {
  type FieldSelector,
  type LabelSelector,
  parseFieldSelector,
  parseLabelSelector,
} from '../client/selectors.js';
import { type ClusterState, clone, objectKeyOf } from './fake-state.js';

/** Parses the selectors of a request; a bad selector answers 400, as the server does. */
export function selectorsOf(options: {
  labelSelector?: string;
  fieldSelector?: string;
}): [LabelSelector, FieldSelector] {
  try {
    return [parseLabelSelector(options.labelSelector), parseFieldSelector(options.fieldSelector)];
  } catch (err) {
    throw apiError(400, 'BadRequest', (err as Error).message);
  }
}

/** Serves a LIST: the latest state, or the state at a continue token's or an exact revision. */
export function listObjects(cluster: ClusterState, type: ResourceType, options: ListOptions): ListResult {
  const kind = cluster.kind(type);
  const [labels, fields] = selectorsOf(options);
  let snapshot = cluster.revision;
  let state = kind.objects;
  let after: string | undefined;
  if (options.continue) {
    const token = decodeContinue(options.continue);
    if (token.rv < cluster.compactedAt) {
      throw apiError(
        410,
        'Expired',
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
      );
    }
    snapshot = token.rv;
    after = token.after;
    state = cluster.stateAt(kind, snapshot);
  } else if (options.resourceVersionMatch === 'Exact' && options.resourceVersion) {
    snapshot = cluster.parseRevision(options.resourceVersion);
    state = cluster.stateAt(kind, snapshot);
  }
  // Lists always serve the latest state otherwise (as a quorum read does, which also satisfies '0').
  const keys = [...state.keys()].sort();
  const items: KubeObject[] = [];
  let next: string | undefined;
  for (const key of keys) {
    if (after !== undefined && key <= after) continue;
    const o = state.get(key) as KubeObject;
    if (type.namespaced && options.namespace && o.metadata.namespace !== options.namespace) continue;
    if (!labels.matches(o.metadata.labels) || !fields.matches(o)) continue;
    if (options.limit !== undefined && options.limit > 0 && items.length === options.limit) {
      next = encodeContinue(
        snapshot,
        objectKeyOf(items.at(-1)?.metadata.namespace, items.at(-1)?.metadata.name ?? ''),
      );
      break;
    }
    items.push(clone(o));
  }
  return { items, resourceVersion: String(snapshot), ...(next ? { continue: next } : {}) };
}

function encodeContinue(rv: number, after: string): string {
  return Buffer.from(JSON.stringify({ rv, after })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; after: string } {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      rv?: unknown;
      after?: unknown;
    };
    if (typeof t.rv === 'number' && typeof t.after === 'string') return { rv: t.rv, after: t.after };
  } catch {
    // fall through
  }
  throw apiError(400, 'BadRequest', 'invalid continue token');
}
