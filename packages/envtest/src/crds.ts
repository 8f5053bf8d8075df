/** Installing CustomResourceDefinitions and waiting until the API server serves them. */
import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { type ApiRequest, readManifests } from './manifests.js';
import { delay } from './wait.js';

/**
 * A CustomResourceDefinition as plain JSON (as read from YAML). Not client-node's model type, whose
 * property names differ from the wire format for keys such as `x-kubernetes-int-or-string`.
 */
export interface CrdObject {
  kind?: string;
  metadata?: { name?: string; labels?: Record<string, string> };
}

/** The CRDs of a YAML file. */
export function readCrdFile(path: string): CrdObject[] {
  return readManifests(path).filter((doc) => doc.kind === 'CustomResourceDefinition') as CrdObject[];
}

/** Creates or replaces `crds` (objects or YAML file paths) and waits until each is Established. */
export async function installCrds(
  request: ApiRequest,
  crds: Array<string | CrdObject>,
  timeoutMs: number,
): Promise<void> {
  const base = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const objects = crds.flatMap((c) => (typeof c === 'string' ? readCrdFile(c) : [c]));
  for (const body of objects) {
    const name = body.metadata?.name as string;
    const created = await request('POST', base, body);
    if (created.status === 409) {
      // Replace what is there. Another test file installing the same CRD, or the apiextensions
      // controllers writing its status, may change it between our read and our write: on a
      // conflict, read and replace again.
      for (let attempt = 1; ; attempt++) {
        const current = await request('GET', `${base}/${name}`);
        const resourceVersion = (current.body as V1CustomResourceDefinition).metadata?.resourceVersion;
        const replaced = await request('PUT', `${base}/${name}`, {
          ...body,
          metadata: { ...body.metadata, resourceVersion },
        });
        if (replaced.status === 200) break;
        if (replaced.status !== 409 || attempt >= 10)
          throw new Error(`replacing CRD ${name}: ${JSON.stringify(replaced.body)}`);
        await delay(50 * attempt);
      }
    } else if (created.status !== 201) {
      throw new Error(`creating CRD ${name}: ${JSON.stringify(created.body)}`);
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (const body of objects) {
    const name = body.metadata?.name as string;
    for (;;) {
      const crd = (await request('GET', `${base}/${name}`)).body as V1CustomResourceDefinition;
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established within ${timeoutMs} ms`);
      await delay(100);
    }
  }
}
