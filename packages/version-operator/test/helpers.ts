/** Shared pieces of the version operator's envtest tests. */
import type { SharedControlPlane } from '@capstan/envtest/vitest';
import { Client, Manager } from '@capstan/runtime';
import { DaemonSet, Deployment, HttpTransport } from '@capstan/runtime/client';
import { createLogger } from '@capstan/runtime/manager';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  addVersionOperator,
  type Catalogue,
  FIELD_MANAGER,
  type RebootStack,
  rolloutOf,
} from '../src/index.js';

export const NAMESPACE = 'capstan-system';

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
): Promise<() => Promise<void>> {
  const manager = Manager.create({
    kubeConfig,
    leaderElection: { id: 'capstan-version-operator', namespace: NAMESPACE },
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    fieldManager: FIELD_MANAGER,
    logger: createLogger({ level: 'warn' }),
  });
  addVersionOperator(manager, { catalogue, rolloutPollMs: 300 });
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
