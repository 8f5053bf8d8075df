/**
 * A small fleet for the gated rollout: envtest with kube-controller-manager (its DaemonSet and
 * clusterrole-aggregation controllers), kube-scheduler and kwok; the coordinator (two replicas of
 * its built main) and the agent under their deploy/ RBAC and admission policies, plus the gate
 * access example (deploy/examples/gate-access.yaml) as users apply it; every agent a child process
 * on its kwok node (the fault suite's {@link FaultMachine}); a real Prometheus scraping a metric the
 * test sets, with an alert rule on it; an HTTPS webhook receiver for the groups' notifications.
 */

import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type RebootGroup, RebootGroupType } from '@capstan/coordinator';
import { type ControlPlane, type MonitoringServer, startPrometheus, testCrd } from '@capstan/envtest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import type { Client } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { startWebhookReceiver, type WebhookReceiver } from '@capstan/runtime/testing';
import type { CoordinatorReplicas } from './coordinators.js';
import { buildFleet, deployFile, installOperators, startCoordinators, startMachines } from './fleet-parts.js';
import { HarnessGate } from './gate.js';
import { FleetLedger, type PlannedGroup } from './ledger.js';
import type { FaultMachine } from './machine.js';

export { FROM_VERSION, TO_VERSION } from './fleet-parts.js';

/** The custom kinds the conditions gates read: Probe (granted by a labelled role), Vault (not). */
export const TEST_GROUP = 'test.capstan.dev';
const POOL = 'capstan.test/pool';

/** What the gated rollout runs and watches. */
export interface GatedFleet {
  plane: ControlPlane;
  admin: Client;
  prometheus: MonitoringServer;
  /** The HTTPS webhook the groups' notifications go to (the coordinator trusts its CA). */
  webhook: WebhookReceiver;
  /** The metric Prometheus scrapes; its alert fires while it is above 0. */
  unhealthy: { value: number };
  machines: Map<string, FaultMachine>;
  ledger: FleetLedger;
  coordinators: CoordinatorReplicas;
  logDir: string;
  faults: string[];
  stop(): Promise<void>;
}

/** Each group: its nodes and its gates. */
export type GroupPlan = {
  name: string;
  nodes: string[];
  gates: Record<string, unknown>;
  notifications?: Record<string, unknown>;
  /** How long a node back up must stay well before its slot frees (the gates checked again). */
  settleTime?: string;
};

async function scrapeTarget(unhealthy: { value: number }): Promise<Server> {
  const target = createServer((_req, res) => {
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end(`# TYPE capstan_test_unhealthy gauge\ncapstan_test_unhealthy ${unhealthy.value}\n`);
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  return target;
}

/**
 * Starts it all; `plan`'s groups (given Prometheus's and the webhook's URLs) become RebootGroups of
 * maxUnavailable 1.
 */
export async function startGatedFleet(
  plan: (urls: { prometheus: string; webhook: string }) => GroupPlan[],
  rebootDownMs: number,
): Promise<GatedFleet> {
  return buildFleet('capstan-gated-rollout-logs-', async (base) => {
    const { plane, admin, logDir, cleanups, stop } = base;
    const testKinds = ['Probe', 'Vault'].map((kind) =>
      testCrd(
        { group: TEST_GROUP, version: 'v1', kind, plural: `${kind.toLowerCase()}s`, namespaced: false },
        { status: false },
      ),
    );
    const daemonSet = await installOperators(base, testKinds, ['monitoring']);
    // The gate access example, as users apply it.
    await plane.createObjects(deployFile('coordinator', 'examples/gate-access.yaml'));
    const unhealthy = { value: 1 };
    const target = await scrapeTarget(unhealthy);
    cleanups.push(async () => target.close());
    const prometheus = await startPrometheus({
      scrapeTargets: [`127.0.0.1:${(target.address() as AddressInfo).port}`],
      rules: [{ alert: 'TestUnhealthy', expr: 'capstan_test_unhealthy > 0', for: '0s' }],
      intervalMs: 500,
    });
    cleanups.push(() => prometheus.stop());
    const webhook = await startWebhookReceiver();
    cleanups.push(() => webhook.close());
    const webhookCa = join(logDir, 'webhook-ca.pem');
    writeFileSync(webhookCa, webhook.caPem);
    const groups = plan({ prometheus: prometheus.url, webhook: webhook.url });
    for (const g of groups)
      await admin.create(RebootGroupType, {
        metadata: { name: g.name },
        spec: {
          ...{ nodeSelector: { matchLabels: { [POOL]: g.name } }, maxUnavailable: 1, gates: g.gates },
          ...(g.notifications ? { notifications: g.notifications } : {}),
          ...(g.settleTime ? { settleTime: g.settleTime } : {}),
        },
      } as RebootGroup);
    const planned: PlannedGroup[] = groups.map((g) => ({ name: g.name, budget: 1, nodes: g.nodes }));
    const ledger = new FleetLedger(capstanProtocol, planned);
    await ledger.watch(new HttpTransport(plane.kubeConfig));
    cleanups.push(() => ledger.stop());

    const { coordinators } = await startCoordinators(base, [`--notify-ca-file=${webhookCa}`]);
    const gate = new HarnessGate();
    const faults: string[] = [];
    const machines = await startMachines(
      base,
      groups.flatMap((g) => g.nodes.map((name) => ({ name, labels: { [POOL]: g.name } }))),
      { daemonSet, rebootDownMs, gate, faults },
    );
    return {
      ...{ plane, admin, prometheus, webhook, unhealthy, machines },
      ...{ ledger, coordinators, logDir, faults, stop },
    };
  });
}
