/**
 * deploy/admission-policy.yaml on the real API server: the coordinator's identity can grant (and
 * keep its bookkeeping, FleetLock requests, hook cleanup), but cannot cordon, taint, relabel or
 * write the agent's reports. The key lists in the YAML are checked against the constants.
 */
import { fileURLToPath } from 'node:url';
import { readManifests } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import {
  CAPSTAN_PREFIX,
  capstanProtocol,
  coordinatorKeys,
  FLUO_PREFIX,
  fluoProtocol,
} from '@capstan/reboot-protocol';
import { Client, type KubeObject } from '@capstan/runtime';
import { ClusterRole, ClusterRoleBinding, HttpTransport, Node } from '@capstan/runtime/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FENCE_POISON_KEY,
  FLEETLOCK_CORDONED_KEY,
  FLEETLOCK_DRAINED_KEY,
  FLEETLOCK_HOLDER_KEY,
} from '../src/index.js';
import { policyFor, policyInForce, removePolicy, shippedPolicy } from './policy-kit.js';

const env = useControlPlane('coord-policy');
const SA = 'capstan-coordinator';
const P = capstanProtocol;
let admin: Client;
let coordinator: Client;
let node: string;
let policy: KubeObject[];

const patch = (client: Client, body: unknown) => client.patch(Node, { name: node }, 'merge', body);

/** What a write the policy denies rejects with. */
const forbidden = (text: string) => ({ code: 403, message: expect.stringContaining(text) });

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  const rbac = readManifests(fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url))) as Array<
    KubeObject & { subjects?: Array<{ namespace?: string }>; roleRef?: { name: string } }
  >;
  for (const obj of rbac) {
    if (obj.kind === 'ClusterRole' || obj.kind === 'ClusterRoleBinding')
      obj.metadata.name = `${SA}-${env.namespace}`;
    else obj.metadata.namespace = env.namespace;
    if (obj.roleRef) obj.roleRef.name = `${SA}-${env.namespace}`;
    for (const s of obj.subjects ?? []) s.namespace = env.namespace;
  }
  await env.plane.createObjects(rbac);
  policy = policyFor(env.namespace);
  await env.plane.createObjects(policy);
  coordinator = new Client(new HttpTransport(await env.plane.serviceAccountKubeConfig(env.namespace, SA)));
  node = `${env.namespace}-n`;
  await admin.create(Node, {
    metadata: {
      name: node,
      labels: { 'example.com/pool': 'blue' },
      annotations: {
        'example.com/drained': 'true',
        [P.annotations.rebootNeeded]: 'true',
        'node.alpha.kubernetes.io/ttl': '0',
        'cluster.x-k8s.io/machine': 'm-0',
      },
    },
    spec: {},
  });
  await policyInForce(coordinator, node);
});

afterAll(async () => {
  await admin?.deleteIfExists(Node, { name: node });
  if (policy) await removePolicy(admin, policy);
  await admin?.deleteIfExists(ClusterRole, { name: `${SA}-${env.namespace}` });
  await admin?.deleteIfExists(ClusterRoleBinding, { name: `${SA}-${env.namespace}` });
});

describe('the coordinator under its admission policy', () => {
  it('grants, keeps its bookkeeping and hook labels, withdraws, and cleans up hook answers', async () => {
    await patch(coordinator, {
      metadata: {
        annotations: {
          [P.annotations.rebootOk]: 'true',
          [coordinatorKeys.grantedAt]: '2026-01-01T00:00:00.000Z',
          [coordinatorKeys.grantedBootId]: 'boot-1',
          'example.com/drained': null,
        },
        labels: { [P.labels.beforeReboot]: null, [P.labels.afterReboot]: 'true' },
      },
    });
    await patch(coordinator, {
      metadata: {
        annotations: {
          [P.annotations.rebootOk]: null,
          [coordinatorKeys.rebootedAt]: '2026-01-01T00:05:00.000Z',
        },
      },
    });
    const n = await admin.get(Node, { name: node });
    expect(n.metadata.annotations?.[coordinatorKeys.rebootedAt]).toBeDefined();
    expect(n.metadata.annotations?.['example.com/drained']).toBeUndefined();
    expect(n.metadata.labels?.[P.labels.afterReboot]).toBe('true');
  });

  it('cannot cordon or taint a node', async () => {
    await expect(patch(coordinator, { spec: { unschedulable: true } })).rejects.toMatchObject(
      forbidden("may not change a Node's spec"),
    );
    await expect(
      patch(coordinator, { spec: { taints: [{ key: 'example.com/x', effect: 'NoSchedule' }] } }),
    ).rejects.toMatchObject(forbidden("may not change a Node's spec"));
  });

  it('cannot edit other labels, nor write the agent’s reports or the pause', async () => {
    await expect(
      patch(coordinator, { metadata: { labels: { 'example.com/pool': 'green' } } }),
    ).rejects.toMatchObject(forbidden('may not change labels example.com/pool'));
    for (const key of [
      P.annotations.rebootNeeded,
      P.annotations.rebootInProgress,
      P.annotations.rebootPaused,
    ]) {
      await expect(
        patch(coordinator, { metadata: { annotations: { [key]: 'false' } } }),
      ).rejects.toMatchObject(forbidden(`may not change annotations ${key}`));
    }
    // System and Cluster API annotations are not hook answers: not even removed.
    for (const key of ['node.alpha.kubernetes.io/ttl', 'cluster.x-k8s.io/machine']) {
      await expect(patch(coordinator, { metadata: { annotations: { [key]: null } } })).rejects.toMatchObject(
        forbidden(`may not change annotations ${key}`),
      );
    }
    // Hook answers may be removed, never given.
    await expect(
      patch(coordinator, { metadata: { annotations: { 'example.com/drained': 'true' } } }),
    ).rejects.toMatchObject(forbidden('may not change annotations example.com/drained'));
    const n = await admin.get(Node, { name: node });
    expect(n.spec?.unschedulable).toBeUndefined();
    expect(n.metadata.labels?.['example.com/pool']).toBe('blue');
  });

  it('removes clear-failure once carried out, but never writes it', async () => {
    await patch(admin, { metadata: { annotations: { [coordinatorKeys.clearFailure]: 'true' } } });
    await expect(
      patch(coordinator, { metadata: { annotations: { [coordinatorKeys.clearFailure]: 'again' } } }),
    ).rejects.toMatchObject(forbidden(`may not change annotations ${coordinatorKeys.clearFailure}`));
    await patch(coordinator, { metadata: { annotations: { [coordinatorKeys.clearFailure]: null } } });
    const n = await admin.get(Node, { name: node });
    expect(n.metadata.annotations?.[coordinatorKeys.clearFailure]).toBeUndefined();
  });

  it('writes reboot-needed only for a FleetLock client, with its holder key', async () => {
    const needed = P.annotations.rebootNeeded;
    await patch(coordinator, {
      metadata: { annotations: { [needed]: 'true', [FLEETLOCK_HOLDER_KEY]: 'zincati-1' } },
    });
    await patch(coordinator, {
      metadata: { annotations: { [needed]: 'false', [FLEETLOCK_HOLDER_KEY]: null } },
    });
    await expect(
      patch(coordinator, { metadata: { annotations: { [needed]: 'true' } } }),
    ).rejects.toMatchObject(forbidden(`may not change annotations ${needed}`));
  });

  it('cordons only a FleetLock client’s node, recorded, and uncordons only its own cordon', async () => {
    const spec = "may not change a Node's spec";
    const holder = { [FLEETLOCK_HOLDER_KEY]: 'zincati-1' };
    // Not a FleetLock node, or without the record: denied.
    await expect(
      patch(coordinator, {
        metadata: { annotations: { [FLEETLOCK_CORDONED_KEY]: 'true' } },
        spec: { unschedulable: true },
      }),
    ).rejects.toMatchObject(forbidden(spec));
    await patch(coordinator, { metadata: { annotations: holder } });
    await expect(patch(coordinator, { spec: { unschedulable: true } })).rejects.toMatchObject(
      forbidden(spec),
    );
    await patch(coordinator, {
      metadata: { annotations: { [FLEETLOCK_CORDONED_KEY]: 'true' } },
      spec: { unschedulable: true },
    });
    await patch(coordinator, {
      metadata: { annotations: { [FLEETLOCK_CORDONED_KEY]: null, [FLEETLOCK_HOLDER_KEY]: null } },
      spec: { unschedulable: false },
    });
    // An admin's cordon is never the coordinator's to lift.
    await patch(admin, { spec: { unschedulable: true } });
    await expect(patch(coordinator, { spec: { unschedulable: false } })).rejects.toMatchObject(
      forbidden(spec),
    );
    await patch(admin, { spec: { unschedulable: false } });
  });
});

/** The string literals of a CEL list variable of the shipped policy. */
function policyList(variable: string): string[] {
  const vap = shippedPolicy().find((o) => o.kind === 'ValidatingAdmissionPolicy');
  const variables = (vap?.spec.variables ?? []) as Array<{ name: string; expression: string }>;
  const expression = variables.find((v) => v.name === variable)?.expression ?? '';
  expect(expression).toMatch(/^\[\s*'[^']+'(\s*,\s*'[^']+')*\s*\]$/);
  return [...expression.matchAll(/'([^']+)'/g)].map((m) => m[1] as string);
}

describe('the policy’s key lists', () => {
  it('are exactly the coordinator’s keys of both protocols and its own bookkeeping', () => {
    expect(new Set(policyList('coordinatorAnnotations'))).toEqual(
      new Set([
        P.annotations.rebootOk,
        fluoProtocol.annotations.rebootOk,
        ...Object.values(coordinatorKeys).filter((k) => k !== coordinatorKeys.clearFailure),
        FENCE_POISON_KEY,
        FLEETLOCK_HOLDER_KEY,
        FLEETLOCK_DRAINED_KEY,
        FLEETLOCK_CORDONED_KEY,
      ]),
    );
    expect(new Set(policyList('coordinatorLabels'))).toEqual(
      new Set([
        P.labels.beforeReboot,
        P.labels.afterReboot,
        fluoProtocol.labels.beforeReboot,
        fluoProtocol.labels.afterReboot,
      ]),
    );
    expect(policyList('removableAnnotations')).toEqual([coordinatorKeys.clearFailure]);
    expect(new Set(policyList('fleetLockRequests'))).toEqual(
      new Set([P.annotations.rebootNeeded, fluoProtocol.annotations.rebootNeeded]),
    );
    expect(policyList('protectedPrefixes')).toEqual(expect.arrayContaining([CAPSTAN_PREFIX, FLUO_PREFIX]));
  });

  it('hold none of the agent’s or the administrator’s keys', () => {
    const listed = new Set([...policyList('coordinatorAnnotations'), ...policyList('coordinatorLabels')]);
    for (const p of [capstanProtocol, fluoProtocol]) {
      const { rebootOk: _, ...others } = p.annotations;
      const { beforeReboot: _b, afterReboot: _a, ...agentLabels } = p.labels;
      for (const key of [...Object.values(others), ...Object.values(agentLabels)])
        expect(listed.has(key), key).toBe(false);
    }
  });
});
