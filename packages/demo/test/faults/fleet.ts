/**
 * The fault suite's cluster: the demo's fleet (three control-plane nodes one at a time, nine workers
 * a quarter at once, a Deployment with a PDB per group and a DaemonSet on every node) on envtest
 * with kube-scheduler and kwok, the coordinator and agent under their deploy/ RBAC and admission
 * policies, the coordinator as two replicas of its built main, every agent a child process.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RebootGroup, RebootGroupType, resolveBudget } from '@capstan/coordinator';
import { ControlPlane, freePorts, readManifests } from '@capstan/envtest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { DaemonSet, HttpTransport, Namespace, Node } from '@capstan/runtime/client';
import { agentPodKubeConfig, serviceAccountKubeConfig } from '../../src/identities.js';
import { createWorkloads, type GroupWorkload } from '../../src/workloads.js';
import { CoordinatorReplicas } from './coordinators.js';
import { HarnessGate } from './gate.js';
import { FleetLedger, type PlannedGroup } from './ledger.js';
import { FaultMachine } from './machine.js';
import { refuseNode } from './refusal-policy.js';

export const NAMESPACE = 'capstan-system';
export const FROM_VERSION = '4459.2.0';
export const TO_VERSION = '4459.2.1';
const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';
const COORDINATOR_USER = `system:serviceaccount:${NAMESPACE}:capstan-coordinator`;
const AGENT_USER = `system:serviceaccount:${NAMESPACE}:capstan-agent`;

/** A pod with this label set to `true` keeps its node from being granted (the groups' gate). */
export const BLOCKS_REBOOT = 'capstan.test/blocks-reboot';

const PLAN = [
  { name: 'control-plane', order: 0, maxUnavailable: 1, controlPlane: true, count: 3 },
  { name: 'workers', order: 1, maxUnavailable: '25%', controlPlane: false, count: 9 },
] as const;

/** Everything the suite runs and watches. */
export interface Fleet {
  plane: ControlPlane;
  admin: Client;
  gate: HarnessGate;
  ledger: FleetLedger;
  coordinators: CoordinatorReplicas;
  machines: Map<string, FaultMachine>;
  groups: PlannedGroup[];
  workloads: GroupWorkload[];
  /** The node whose writes the admission policy refuses. */
  refused: string;
  /** Where every operator's log lines go. */
  logDir: string;
  /** Faults of the simulation itself (not of the operators). */
  faults: string[];
  stop(): Promise<void>;
}

/** Starts the cluster, the policies, the coordinator replicas and the twelve machines. */
export async function startFleet(options: { refused: string; rebootDownMs: number }): Promise<Fleet> {
  const logDir = mkdtempSync(join(tmpdir(), 'capstan-fault-suite-logs-'));
  const plane = await ControlPlane.start({ controllerManager: true, scheduler: true, kwok: true });
  const cleanups: Array<() => Promise<unknown>> = [() => plane.stop()];
  const stop = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  };
  try {
    const admin = new Client(new HttpTransport(plane.kubeConfig));
    await plane.installCRDs([
      fileURLToPath(import.meta.resolve('@capstan/coordinator/deploy/crds/rebootgroups.yaml')),
    ]);
    await admin.create(Namespace, { metadata: { name: NAMESPACE } });
    const deploy = (operator: string, file: string) =>
      readManifests(fileURLToPath(import.meta.resolve(`@capstan/${operator}/deploy/${file}`)));
    for (const operator of ['coordinator', 'agent']) {
      await plane.createObjects(deploy(operator, 'rbac.yaml'));
      await plane.createObjects(deploy(operator, 'admission-policy.yaml'));
    }
    await plane.createObjects(deploy('agent', 'daemonset.yaml'));
    const daemonSet = await admin.get(DaemonSet, { namespace: NAMESPACE, name: 'capstan-agent' });
    const coordinatorFile = await plane.serviceAccountKubeConfig(NAMESPACE, 'capstan-coordinator');
    const coordinator = new Client(
      new HttpTransport(
        await serviceAccountKubeConfig(plane, NAMESPACE, 'capstan-coordinator', (c) =>
          c.list(Node, { limit: 1 }),
        ),
      ),
    );

    const groups: PlannedGroup[] = [];
    const names = new Map<string, boolean>();
    for (const g of PLAN) {
      const prefix = g.controlPlane ? 'control-plane' : 'worker';
      const nodes = Array.from({ length: g.count }, (_, i) => `${prefix}-${i + 1}`);
      for (const n of nodes) names.set(n, g.controlPlane);
      groups.push({ name: g.name, budget: resolveBudget(g.maxUnavailable, g.count), nodes });
      await admin.create(RebootGroupType, {
        metadata: { name: g.name },
        spec: {
          nodeSelector: {
            matchExpressions: [
              { key: CONTROL_PLANE_LABEL, operator: g.controlPlane ? 'Exists' : 'DoesNotExist' },
            ],
          },
          order: g.order,
          maxUnavailable: g.maxUnavailable,
          grantTimeout: '10m',
          // Issue 44's safety settings under the same faults: a pod gate, a settle time, and
          // failures set aside rather than halting (none is expected: the budget must hold).
          gates: { blockingPods: { matchLabels: { [BLOCKS_REBOOT]: 'true' } } },
          settleTime: '1s',
          onFailure: 'SetAside',
          maxFailed: 1,
        },
      } as RebootGroup);
    }
    const ledger = new FleetLedger(capstanProtocol, groups);
    await ledger.watch(new HttpTransport(plane.kubeConfig));
    cleanups.push(() => ledger.stop());

    const coordinators = new CoordinatorReplicas({
      kubeconfigPath: coordinatorFile.path,
      namespace: NAMESPACE,
      logFile: join(logDir, 'coordinators.log'),
      probePorts: (await freePorts(2)) as [number, number],
    });
    coordinators.start();
    cleanups.push(() => coordinators.stop());

    const gate = new HarnessGate();
    const faults: string[] = [];
    const machines = new Map<string, FaultMachine>();
    cleanups.push(() => Promise.all([...machines.values()].map((m) => m.stop())));
    const started = await Promise.all(
      [...names].map(([name, controlPlane]) =>
        FaultMachine.start({
          name,
          labels: {
            'kubernetes.io/hostname': name,
            'kubernetes.io/os': 'linux',
            ...(controlPlane ? { [CONTROL_PLANE_LABEL]: '' } : {}),
          },
          version: FROM_VERSION,
          plane,
          identity: () => agentPodKubeConfig(plane, daemonSet, name),
          logFile: join(logDir, `agent-${name}.log`),
          rebootDownMs: options.rebootDownMs,
          gate,
          onFault: (what, err) => faults.push(`${what}: ${err instanceof Error ? err.message : String(err)}`),
        }),
      ),
    );
    for (const m of started) machines.set(m.name, m);

    await refuseNode(plane, coordinator, options.refused, COORDINATOR_USER, AGENT_USER);
    const workloads: GroupWorkload[] = PLAN.map((g) => ({
      name: g.controlPlane ? 'api-gateway' : 'web',
      nodeSelector: { key: CONTROL_PLANE_LABEL, operator: g.controlPlane ? 'Exists' : 'DoesNotExist' },
      replicas: g.count,
      maxUnavailable: 1,
    }));
    await createWorkloads(admin, workloads);
    return {
      plane,
      admin,
      gate,
      ledger,
      coordinators,
      machines,
      groups,
      workloads,
      refused: options.refused,
      logDir,
      faults,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
