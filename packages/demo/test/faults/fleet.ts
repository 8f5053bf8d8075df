/**
 * The fault suite's cluster: the demo's fleet (three control-plane nodes one at a time, nine workers
 * a quarter at once, a Deployment with a PDB per group and a DaemonSet on every node) on envtest
 * with kube-scheduler and kwok, the coordinator and agent under their deploy/ RBAC and admission
 * policies, the coordinator as two replicas of its built main, every agent a child process.
 */
import { type RebootGroup, RebootGroupType, resolveBudget } from '@capstan/coordinator';
import type { ControlPlane } from '@capstan/envtest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import type { Client } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { createWorkloads, type GroupWorkload } from '../../src/workloads.js';
import type { CoordinatorReplicas } from './coordinators.js';
import { buildFleet, installOperators, NAMESPACE, startCoordinators, startMachines } from './fleet-parts.js';
import { HarnessGate } from './gate.js';
import { FleetLedger, type PlannedGroup } from './ledger.js';
import type { FaultMachine } from './machine.js';
import { refuseNode } from './refusal-policy.js';

export { FROM_VERSION, NAMESPACE, TO_VERSION } from './fleet-parts.js';

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
  return buildFleet('capstan-fault-suite-logs-', async (base) => {
    const { plane, admin, logDir, cleanups, stop } = base;
    const daemonSet = await installOperators(base);

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

    const { coordinators, coordinator } = await startCoordinators(base);
    const gate = new HarnessGate();
    const faults: string[] = [];
    const machines = await startMachines(
      base,
      [...names].map(([name, controlPlane]) => {
        const labels: Record<string, string> = controlPlane ? { [CONTROL_PLANE_LABEL]: '' } : {};
        return { name, labels };
      }),
      { daemonSet, rebootDownMs: options.rebootDownMs, gate, faults },
    );

    await refuseNode(plane, coordinator, options.refused, COORDINATOR_USER, AGENT_USER);
    const workloads: GroupWorkload[] = PLAN.map((g) => ({
      name: g.controlPlane ? 'api-gateway' : 'web',
      nodeSelector: { key: CONTROL_PLANE_LABEL, operator: g.controlPlane ? 'Exists' : 'DoesNotExist' },
      replicas: g.count,
      maxUnavailable: 1,
    }));
    await createWorkloads(admin, workloads);
    return {
      ...{ plane, admin, gate, ledger, coordinators, machines, groups, workloads },
      ...{ refused: options.refused, logDir, faults, stop },
    };
  });
}
