/**
 * What the fault suite's fleet and the gated rollout's start alike: envtest with
 * kube-controller-manager, kube-scheduler and kwok; the coordinator's and agent's deploy/ RBAC,
 * admission policies and DaemonSet; the coordinator as two replicas of its built main; each agent a
 * {@link FaultMachine} on its kwok node, running as its DaemonSet's pod there.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ControlPlane,
  type CrdObject,
  freePorts,
  type ManifestObject,
  readManifests,
} from '@capstan/envtest';
import { Client } from '@capstan/runtime';
import { DaemonSet, HttpTransport, Namespace, Node } from '@capstan/runtime/client';
import { agentPodKubeConfig, serviceAccountKubeConfig } from '../../src/identities.js';
import { CoordinatorReplicas } from './coordinators.js';
import type { HarnessGate } from './gate.js';
import { FaultMachine } from './machine.js';

export const NAMESPACE = 'capstan-system';
export const FROM_VERSION = '4459.2.0';
export const TO_VERSION = '4459.2.1';

/** A started plane, its admin, where logs go, and what stops everything started on it (last first). */
export interface FleetBase {
  plane: ControlPlane;
  admin: Client;
  logDir: string;
  cleanups: Array<() => Promise<unknown>>;
  stop(): Promise<void>;
}

/** Starts the plane and runs `build` on it; if `build` throws, stops what it started and the plane. */
export async function buildFleet<T>(logPrefix: string, build: (base: FleetBase) => Promise<T>): Promise<T> {
  const logDir = mkdtempSync(join(tmpdir(), logPrefix));
  const plane = await ControlPlane.start({ controllerManager: true, scheduler: true, kwok: true });
  const cleanups: Array<() => Promise<unknown>> = [() => plane.stop()];
  const stop = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  };
  try {
    return await build({
      plane,
      admin: new Client(new HttpTransport(plane.kubeConfig)),
      logDir,
      cleanups,
      stop,
    });
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A file of an operator's deploy/ folder, as its package ships it. */
export const deployFile = (operator: string, file: string): ManifestObject[] =>
  readManifests(fileURLToPath(import.meta.resolve(`@capstan/${operator}/deploy/${file}`)));

/**
 * The RebootGroup CRD (and `crds`), the namespaces, the coordinator's and agent's RBAC and admission
 * policies and the agent's DaemonSet, as their deploy/ folders have them.
 */
export async function installOperators(
  base: FleetBase,
  crds: Array<string | CrdObject> = [],
  namespaces: string[] = [],
): Promise<DaemonSet> {
  const { plane, admin } = base;
  await plane.installCRDs([
    fileURLToPath(import.meta.resolve('@capstan/coordinator/deploy/crds/rebootgroups.yaml')),
    ...crds,
  ]);
  for (const name of [NAMESPACE, ...namespaces]) await admin.create(Namespace, { metadata: { name } });
  for (const operator of ['coordinator', 'agent']) {
    await plane.createObjects(deployFile(operator, 'rbac.yaml'));
    await plane.createObjects(deployFile(operator, 'admission-policy.yaml'));
  }
  await plane.createObjects(deployFile('agent', 'daemonset.yaml'));
  return admin.get(DaemonSet, { namespace: NAMESPACE, name: 'capstan-agent' });
}

/**
 * Starts the coordinator's two replicas as its ServiceAccount (once its RBAC is in force), with
 * `args` beside the harness's; answers them and that identity.
 */
export async function startCoordinators(
  base: FleetBase,
  args: string[] = [],
): Promise<{ coordinators: CoordinatorReplicas; coordinator: Client }> {
  const { plane, logDir, cleanups } = base;
  const file = await plane.serviceAccountKubeConfig(NAMESPACE, 'capstan-coordinator');
  const identity = await serviceAccountKubeConfig(plane, NAMESPACE, 'capstan-coordinator', (c) =>
    c.list(Node, { limit: 1 }),
  );
  const coordinators = new CoordinatorReplicas({
    kubeconfigPath: file.path,
    namespace: NAMESPACE,
    logFile: join(logDir, 'coordinators.log'),
    probePorts: (await freePorts(2)) as [number, number],
    ...(args.length > 0 ? { args } : {}),
  });
  coordinators.start();
  cleanups.push(() => coordinators.stop());
  return { coordinators, coordinator: new Client(new HttpTransport(identity)) };
}

/** Where the machines run and what they share. */
export interface MachinesOptions {
  daemonSet: DaemonSet;
  rebootDownMs: number;
  gate: HarnessGate;
  /** Faults of the simulation itself, as `what: message`. */
  faults: string[];
}

/** Starts a {@link FaultMachine} at {@link FROM_VERSION} for each node, with its labels. */
export async function startMachines(
  base: FleetBase,
  nodes: Array<{ name: string; labels: Record<string, string> }>,
  options: MachinesOptions,
): Promise<Map<string, FaultMachine>> {
  const { plane, logDir, cleanups } = base;
  const machines = new Map<string, FaultMachine>();
  cleanups.push(() => Promise.all([...machines.values()].map((m) => m.stop())));
  const started = await Promise.all(
    nodes.map(({ name, labels }) =>
      FaultMachine.start({
        name,
        labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...labels },
        version: FROM_VERSION,
        plane,
        identity: () => agentPodKubeConfig(plane, options.daemonSet, name),
        logFile: join(logDir, `agent-${name}.log`),
        rebootDownMs: options.rebootDownMs,
        gate: options.gate,
        onFault: (what, err) =>
          options.faults.push(`${what}: ${err instanceof Error ? err.message : String(err)}`),
      }),
    ),
  );
  for (const m of started) machines.set(m.name, m);
  return machines;
}
