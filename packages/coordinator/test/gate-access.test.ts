/**
 * deploy/examples/gate-access.yaml on envtest's real RBAC, with kube-controller-manager's
 * clusterrole-aggregation controller, for a ServiceAccount holding only the shipped roles
 * (deploy/rbac.yaml and the example). Its Secret grant: the coordinator reads the token a
 * Prometheus gate names; a Secret the Role does not name stays forbidden, which makes the gate an
 * Error (fail closed). Its aggregated ClusterRole: a conditions gate over a kind a labelled
 * ClusterRole grants is evaluated through the coordinator's informers; over a kind none grants it
 * is an Error saying `forbidden` until such a role appears.
 */
import { fileURLToPath } from 'node:url';
import { readManifests, testCrd } from '@capstan/envtest';
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { Client, defineResource, type KubeObject, Manager } from '@capstan/runtime';
import { ClusterRole, HttpTransport, Namespace, Secret } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RebootGroup } from '../src/api/reboot-group.js';
import { readGateFacts } from '../src/gate-facts.js';
import {
  ConditionReads,
  type ConditionSpec,
  conditionResource,
  conditionRestriction,
} from '../src/gates/condition-reads.js';
import { endpointAuth } from '../src/gates/monitoring-http.js';
import { readPrometheusGate } from '../src/gates/prometheus-gate.js';

const env = useOwnControlPlane({ controllerManager: ['clusterrole-aggregation'] }, 'gate-access');
const NS = 'capstan-system';
const SA = 'capstan-coordinator';
const GROUP = 'access.capstan.dev';
const deploy = (file: string) => readManifests(fileURLToPath(new URL(`../deploy/${file}`, import.meta.url)));
const kind = (k: string) =>
  defineResource<KubeObject & { spec?: { health?: string } }>({
    ...{ group: GROUP, version: 'v1', kind: k, plural: `${k.toLowerCase()}s`, namespaced: false },
  });
/** A ClusterRole the example's aggregated role picks up, as a user adds one per kind. */
const gateRole = (resource: string) => ({
  metadata: {
    name: `capstan-coordinator-gates-${resource}`,
    labels: { 'reboot.capstan.dev/aggregate-to-coordinator-gates': 'true' },
  },
  rules: [{ apiGroups: [GROUP], resources: [resource], verbs: ['get', 'list', 'watch'] }],
});
const group = (k: string): RebootGroup =>
  ({
    metadata: { name: k.toLowerCase() },
    spec: {
      gates: {
        conditions: [
          { apiVersion: `${GROUP}/v1`, kind: k, name: 'storage', expression: "object.spec.health == 'OK'" },
        ],
      },
    },
  }) as RebootGroup;

let admin: Client;
let coordinator: Manager;
const stop = new AbortController();
let running: Promise<void> | undefined;

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  for (const name of [NS, 'monitoring']) await admin.create(Namespace, { metadata: { name } });
  await env.plane.installCRDs([
    fileURLToPath(new URL('../deploy/crds/rebootgroups.yaml', import.meta.url)),
    testCrd(kind('Probe'), { status: false }),
    testCrd(kind('Vault'), { status: false }),
  ]);
  // Only the shipped roles: the coordinator's own and the example, as an administrator applies them.
  await env.plane.createObjects([...deploy('rbac.yaml'), ...deploy('examples/gate-access.yaml')]);
  await admin.create(ClusterRole, gateRole('probes'));
  for (const name of ['prometheus-reader', 'unrelated'])
    await admin.create(Secret, {
      metadata: { name, namespace: 'monitoring' },
      data: { token: Buffer.from(`token-of-${name}`).toString('base64') },
    });
  for (const k of ['Probe', 'Vault'])
    await admin.create(kind(k), { metadata: { name: 'storage' }, spec: { health: 'OK' } });
  coordinator = Manager.create({
    kubeConfig: await env.plane.serviceAccountKubeConfig(NS, SA),
    ...{ metricsBindAddress: '0', healthProbeBindAddress: '0', logLevel: 'silent' },
  });
  running = coordinator.start(stop.signal);
}, 120_000);
afterAll(async () => {
  stop.abort();
  await running;
});

/** The conditions gate of `k`'s group, read as the coordinator's rounds read it. */
async function conditionOf(k: string) {
  const facts = await readGateFacts(coordinator.client, [group(k)], coordinator.cache);
  return facts[k.toLowerCase()]?.health?.[0];
}

describe('the gate access example', () => {
  it('lets the coordinator read the Secret it names, and no other', async () => {
    const auth = await endpointAuth(coordinator.client, {
      url: 'http://127.0.0.1:1',
      bearerTokenSecretRef: { namespace: 'monitoring', name: 'prometheus-reader', key: 'token' },
    });
    expect(auth.token).toBe('token-of-prometheus-reader');
    const state = await readPrometheusGate(coordinator.client, {
      url: 'http://127.0.0.1:1',
      query: 'up',
      bearerTokenSecretRef: { namespace: 'monitoring', name: 'unrelated', key: 'token' },
    });
    expect(state).toMatchObject({
      gate: 'prometheus',
      state: 'Error',
      message: expect.stringMatching(/forbidden/i),
    });
  });

  it('evaluates a condition over a kind a labelled ClusterRole grants, through its informer', async () => {
    // The aggregation controller fills the example's role in; until then the read is forbidden.
    await eventually(async () => (await conditionOf('Probe'))?.state === 'Open', {
      what: 'the Probe condition Open for the coordinator',
      timeoutMs: 30_000,
    });
    // list and watch are granted: its informer syncs, and rounds read it rather than the server.
    const condition = group('Probe').spec?.gates?.conditions?.[0] as ConditionSpec;
    const informer = coordinator.cache.informerFor(
      conditionResource(condition),
      conditionRestriction(condition),
    );
    await eventually(() => informer.hasSynced(), { what: 'the Probe informer synced', timeoutMs: 30_000 });
    const reads = new ConditionReads(coordinator.client, coordinator.cache);
    await reads.read(condition);
    expect(reads.directReads).toBe(0);
    await admin.patch(kind('Probe'), { name: 'storage' }, 'merge', { spec: { health: 'WARN' } });
    await eventually(async () => (await conditionOf('Probe'))?.state === 'Closed', {
      what: 'the Probe condition Closed once its object says WARN',
      timeoutMs: 30_000,
    });
  });

  it('a kind no role grants is an Error saying forbidden, until a labelled ClusterRole grants it', async () => {
    expect(await conditionOf('Vault')).toMatchObject({
      state: 'Error',
      message: expect.stringMatching(/Vault storage could not be read: .*forbidden/i),
    });
    await admin.create(ClusterRole, gateRole('vaults'));
    await eventually(async () => (await conditionOf('Vault'))?.state === 'Open', {
      what: 'the Vault condition Open once a role grants it',
      timeoutMs: 30_000,
    });
  });
});
