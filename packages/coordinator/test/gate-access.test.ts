/**
 * deploy/examples/gate-access.yaml's Secret grant, on envtest's real RBAC: with it, the
 * coordinator's service account reads the token a Prometheus gate names; a Secret the Role does
 * not name stays forbidden, which makes the gate an Error (fail closed), never an open gate.
 */
import { fileURLToPath } from 'node:url';
import { readManifests } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Client, type KubeObject } from '@capstan/runtime';
import { HttpTransport, Secret, ServiceAccount } from '@capstan/runtime/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { endpointAuth } from '../src/gates/monitoring-http.js';
import { readPrometheusGate } from '../src/gates/prometheus-gate.js';

const env = useControlPlane('gate-access');
const SA = 'capstan-coordinator';
let coordinator: Client;

beforeAll(async () => {
  const ns = env.namespace;
  const admin = new Client(new HttpTransport(env.kubeConfig));
  await admin.create(ServiceAccount, { metadata: { name: SA, namespace: ns } });
  const path = fileURLToPath(new URL('../deploy/examples/gate-access.yaml', import.meta.url));
  const secretGrant = (
    readManifests(path) as Array<KubeObject & { subjects?: Array<{ namespace?: string }> }>
  )
    .filter((o) => o.kind === 'Role' || o.kind === 'RoleBinding')
    .map((o) => ({
      ...o,
      metadata: { ...o.metadata, namespace: ns },
      ...(o.subjects ? { subjects: o.subjects.map((s) => ({ ...s, namespace: ns })) } : {}),
    }));
  await env.plane.createObjects(secretGrant);
  for (const name of ['prometheus-reader', 'unrelated'])
    await admin.create(Secret, {
      metadata: { name, namespace: ns },
      data: { token: Buffer.from(`token-of-${name}`).toString('base64') },
    });
  coordinator = new Client(new HttpTransport(await env.plane.serviceAccountKubeConfig(ns, SA)));
});

describe('the gate access example', () => {
  it('lets the coordinator read the Secret it names, and no other', async () => {
    const ns = env.namespace;
    const auth = await endpointAuth(coordinator, {
      url: 'http://127.0.0.1:1',
      bearerTokenSecretRef: { namespace: ns, name: 'prometheus-reader', key: 'token' },
    });
    expect(auth.token).toBe('token-of-prometheus-reader');
    const state = await readPrometheusGate(coordinator, {
      url: 'http://127.0.0.1:1',
      query: 'up',
      bearerTokenSecretRef: { namespace: ns, name: 'unrelated', key: 'token' },
    });
    expect(state).toMatchObject({
      gate: 'prometheus',
      state: 'Error',
      message: expect.stringMatching(/forbidden/i),
    });
  });
});
