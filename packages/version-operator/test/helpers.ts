/** Shared pieces of the version operator's envtest tests. */
import { fileURLToPath } from 'node:url';
import { refuseWrites } from '@capstan/envtest';
import type { SharedControlPlane } from '@capstan/envtest/vitest';
import { Client, Manager } from '@capstan/runtime';
import { DaemonSet, Deployment, HttpTransport, Namespace } from '@capstan/runtime/client';
import { createLogger } from '@capstan/runtime/manager';
import { eventually } from '@capstan/runtime/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  addVersionOperator,
  type Catalogue,
  type RebootStack,
  RebootStackType,
  rolloutOf,
  VERSION_OPERATOR_MANAGER,
} from '../src/index.js';
import { VERSION_A } from './version-b.js';

export const NAMESPACE = 'capstan-system';

/** A stack on FLUO's keys at version A, without default groups, agents one at a time. */
export const FLUO_STACK: RebootStack['spec'] = {
  version: VERSION_A,
  protocol: 'fluo',
  defaultRebootGroups: false,
  agent: { maxUnavailable: 1 },
};

/** The control-plane node and three workers (kwok runs their pods). */
export const NODES = [
  { name: 'cp-0', labels: { 'node-role.kubernetes.io/control-plane': '' } },
  { name: 'worker-0' },
  { name: 'worker-1' },
  { name: 'worker-2' },
];

export const admin = (env: SharedControlPlane) => new Client(new HttpTransport(env.kubeConfig));

/**
 * Starts the version operator on its own manager, with leader election, as its Deployment would;
 * as `kubeConfig` (its service account, say), or the admin.
 */
export async function startOperator(
  env: SharedControlPlane,
  catalogue: Catalogue,
  kubeConfig: KubeConfig = env.kubeConfig,
  options: { migrationStallMs?: number } = {},
): Promise<() => Promise<void>> {
  const manager = Manager.create({
    kubeConfig,
    leaderElection: { id: 'capstan-version-operator', namespace: NAMESPACE },
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    fieldManager: VERSION_OPERATOR_MANAGER,
    logger: createLogger({ level: 'warn' }),
  });
  addVersionOperator(manager, { catalogue, rolloutPollMs: 300, ...options });
  const stop = new AbortController();
  const done = manager.start(stop.signal);
  return async () => {
    stop.abort();
    await done;
  };
}

/** The coordinator Deployment's and agent DaemonSet's rollouts now (undefined when absent). */
export async function rollouts(client: Client) {
  const read = async <T>(p: Promise<T>) => p.catch(() => undefined);
  const d = await read(client.get(Deployment, { namespace: NAMESPACE, name: 'capstan-coordinator' }));
  const ds = await read(client.get(DaemonSet, { namespace: NAMESPACE, name: 'capstan-agent' }));
  return { coordinator: d && rolloutOf(d as never), agent: ds && rolloutOf(ds as never) };
}

/** A condition of a stack. */
export const condition = (stack: RebootStack | undefined, type: string) =>
  stack?.status?.conditions?.find((c) => c.type === type);

/** The message of {@link freezeAgentDaemonSet}'s refusal. */
export const FROZEN = 'the agent DaemonSet is frozen by a test policy';

/** Refuses every write to the agent DaemonSet until the answered function lifts the refusal. */
export function freezeAgentDaemonSet(env: SharedControlPlane): Promise<() => Promise<void>> {
  const client = admin(env);
  return refuseWrites(env.plane, {
    name: 'freeze-capstan-agent',
    resourceRules: [
      {
        apiGroups: ['apps'],
        apiVersions: ['v1'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['daemonsets'],
      },
    ],
    expression: "object.metadata.name != 'capstan-agent'",
    message: FROZEN,
    probe: () =>
      client.patch(
        DaemonSet,
        { namespace: NAMESPACE, name: 'capstan-agent' },
        'merge',
        { metadata: { labels: { probe: 'x' } } },
        { dryRun: true },
      ),
    timeoutMs: 20_000,
  });
}

/**
 * The simulated cluster the migration and upgrade tests start from: the nodes, the RebootStack CRD,
 * the operator's namespace (its Lease lives there) and the operator running as the admin.
 * Answers how to stop the operator.
 */
export async function prepareCluster(
  env: SharedControlPlane,
  catalogue: Catalogue,
  options: { migrationStallMs?: number } = {},
): Promise<() => Promise<void>> {
  await env.plane.addNodes(NODES);
  await env.plane.installCRDs([fileURLToPath(new URL('../deploy/crds/rebootstacks.yaml', import.meta.url))]);
  await admin(env).create(Namespace, { metadata: { name: NAMESPACE } });
  return startOperator(env, catalogue, env.kubeConfig, { migrationStallMs: options.migrationStallMs });
}

/** Creates the stack `capstan` with `spec` and waits until it is Available and `settled` holds. */
export async function createStack(
  client: Client,
  spec: RebootStack['spec'],
  settled: (s: RebootStack) => boolean,
  what: string,
): Promise<RebootStack> {
  await client.create(RebootStackType, { metadata: { name: 'capstan' }, spec } as RebootStack);
  return eventually(
    async () => {
      const s = await client.get(RebootStackType, { name: 'capstan' });
      return condition(s, 'Available')?.status === 'True' && settled(s) ? s : undefined;
    },
    { what, timeoutMs: 90_000 },
  );
}

/** Waits until the stack `capstan` satisfies `ok`, and returns it. */
export function stackWhen(
  client: Client,
  ok: (s: RebootStack) => boolean,
  what: string,
  timeoutMs = 120_000,
): Promise<RebootStack> {
  let last: RebootStack | undefined;
  return eventually(
    async () => {
      last = await client.get(RebootStackType, { name: 'capstan' });
      return ok(last) ? last : undefined;
    },
    { what, timeoutMs, details: () => `last status: ${JSON.stringify(last?.status)}` },
  );
}

/** The stack's migration to capstan is over and it is Available. */
export const migratedToCapstan = (s: RebootStack): boolean =>
  s.status?.observedProtocol === 'capstan' &&
  !s.status.migration &&
  condition(s, 'Available')?.status === 'True';
