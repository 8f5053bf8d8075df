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

/** One JSON request to the API server (a JSON body, unless `contentType` says otherwise); answers the status and the parsed body. */
export type ApiRequest = (
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
) => Promise<{ status: number; body: unknown }>;

interface DiscoveredResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/**
 * The collection path of each object's kind, from API discovery (asked once per apiVersion);
 * namespaced objects without a namespace go to `default`.
 */
function collectionPaths(request: ApiRequest): (object: ManifestObject) => Promise<string> {
  const discovered = new Map<string, DiscoveredResource[]>();
  return async (object) => {
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
    return resource.namespaced
      ? `${base}/namespaces/${object.metadata?.namespace ?? 'default'}/${resource.name}`
      : `${base}/${resource.name}`;
  };
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
  const pathOf = collectionPaths(request);
  for (const object of objects) {
    const created = await request('POST', await pathOf(object), object);
    if (created.status === 201 || (created.status === 409 && options.ignoreExisting)) continue;
    throw new Error(`creating ${object.kind} ${object.metadata?.name}: ${JSON.stringify(created.body)}`);
  }
}

/** Options of `applyManifestObjects`. */
export interface ApplyOptions {
  /** Only check: the server validates, admits and defaults, and stores nothing (`--dry-run=server`). */
  dryRun?: boolean;
  /** The field manager of the apply (default `capstan-envtest`). */
  fieldManager?: string;
}

/**
 * Applies each object in order, as `kubectl apply --server-side --force-conflicts --validate=strict`
 * does: a field the schema does not know, or a duplicate one, is an error naming the object.
 */
export async function applyManifestObjects(
  request: ApiRequest,
  objects: ManifestObject[],
  options: ApplyOptions = {},
): Promise<void> {
  const pathOf = collectionPaths(request);
  const query = new URLSearchParams({
    fieldManager: options.fieldManager ?? 'capstan-envtest',
    fieldValidation: 'Strict',
    force: 'true',
  });
  if (options.dryRun) query.set('dryRun', 'All');
  for (const object of objects) {
    const name = object.metadata?.name;
    if (!name) throw new Error(`manifest object without a name: ${JSON.stringify(object)}`);
    const path = `${await pathOf(object)}/${encodeURIComponent(name)}?${query}`;
    const applied = await request('PATCH', path, object, 'application/apply-patch+yaml');
    if (applied.status === 200 || applied.status === 201) continue;
    const status = applied.body as { message?: string } | undefined;
    throw new Error(`applying ${object.kind} ${name}: ${status?.message ?? JSON.stringify(applied.body)}`);
  }
}
