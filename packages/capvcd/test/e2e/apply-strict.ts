/**
 * Server-side apply with `fieldValidation=Strict`, as `kubectl apply --server-side` sends it: an
 * unknown or duplicate field is an error, not a warning, so a manifest that applies here carries
 * no field the schema would silently prune.
 */
import { request } from 'node:https';
import type { ControlPlane, ManifestObject } from '@capstan/envtest';

/** The object's path (plural: the lower-case kind + "s", or "es" after an s, as for every kind here). */
function pathOf(o: ManifestObject): string {
  const apiVersion = o.apiVersion as string;
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const kind = (o.kind as string).toLowerCase();
  const plural = kind.endsWith('s') ? `${kind}es` : `${kind}s`;
  const ns = o.metadata?.namespace ? `/namespaces/${o.metadata.namespace}` : '';
  return `${base}${ns}/${plural}/${o.metadata?.name}`;
}

/** Applies `o` as kubectl (`dryRun`: validated only); rejects with the API server's message on a refusal. */
export async function applyStrict(
  plane: ControlPlane,
  o: ManifestObject,
  { dryRun = false }: { dryRun?: boolean } = {},
): Promise<void> {
  const options: import('node:https').RequestOptions = { method: 'PATCH', timeout: 30_000 };
  await plane.kubeConfig.applyToHTTPSOptions(options);
  options.headers = {
    ...options.headers,
    accept: 'application/json',
    'content-type': 'application/apply-patch+yaml',
  };
  const url = `${plane.server}${pathOf(o)}?fieldManager=kubectl&fieldValidation=Strict&force=true${dryRun ? '&dryRun=All' : ''}`;
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`applying ${o.kind} ${o.metadata?.name}: timed out`)));
    req.end(JSON.stringify(o));
  });
  if (status !== 200 && status !== 201)
    throw new Error(`${o.apiVersion} ${o.kind} ${o.metadata?.name}: ${status} ${body}`);
}
