/**
 * Manifests as tests and demos use them: multi-document YAML read into plain objects, and created
 * on the API server the way `kubectl create -f` does, each kind resolved through API discovery.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

/** One object of a manifest, as plain JSON. */
export interface ManifestObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** The objects of a multi-document YAML file, in order; empty documents are skipped. */
export function readManifests(path: string): ManifestObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((doc) => doc.toJS() as ManifestObject | null)
    .filter((doc): doc is ManifestObject => doc !== null && typeof doc === 'object');
}

/** One JSON request to the API server; answers the status and the parsed body. */
export type ApiRequest = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: unknown }>;

interface DiscoveredResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/**
 * Creates each object at the path discovery gives its apiVersion and kind (namespaced objects
 * without a namespace go to `default`). With `ignoreExisting`, an object that exists already is
 * left as it is; otherwise that is an error, as is any other refusal.
 */
export async function createManifestObjects(
  request: ApiRequest,
  objects: ManifestObject[],
  options: { ignoreExisting?: boolean } = {},
): Promise<void> {
  const discovered = new Map<string, DiscoveredResource[]>();
  for (const object of objects) {
    const { apiVersion, kind } = object;
    if (!apiVersion || !kind)
      throw new Error(`manifest object without apiVersion or kind: ${JSON.stringify(object)}`);
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    let resources = discovered.get(base);
    if (!resources) {
      const answer = await request('GET', base);
      if (answer.status !== 200)
        throw new Error(`discovery of ${apiVersion}: ${JSON.stringify(answer.body)}`);
      resources = (answer.body as { resources: DiscoveredResource[] }).resources.filter(
        (r) => !r.name.includes('/'),
      );
      discovered.set(base, resources);
    }
    const resource = resources.find((r) => r.kind === kind);
    if (!resource) throw new Error(`the API server serves no ${kind} in ${apiVersion}`);
    const path = resource.namespaced
      ? `${base}/namespaces/${object.metadata?.namespace ?? 'default'}/${resource.name}`
      : `${base}/${resource.name}`;
    const created = await request('POST', path, object);
    if (created.status === 201 || (created.status === 409 && options.ignoreExisting)) continue;
    throw new Error(`creating ${kind} ${object.metadata?.name}: ${JSON.stringify(created.body)}`);
  }
}
