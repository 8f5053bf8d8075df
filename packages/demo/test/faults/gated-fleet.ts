/**
 * A small fleet for the gated rollout: envtest with kube-controller-manager (its DaemonSet and
 * clusterrole-aggregation controllers), kube-scheduler and kwok; the coordinator (two replicas of
 * its built main) and the agent under their deploy/ RBAC and admission policies, plus the gate
 * access example (deploy/examples/gate-access.yaml) as users apply it; every agent a child process
 * on its kwok node (the fault suite's {@link FaultMachine}); a real Prometheus scraping a metric the
 * test sets, with an alert rule on it; an HTTPS webhook receiver for the groups' notifications.
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RebootGroup, RebootGroupType } from '@capstan/coordinator';
import {
  ControlPlane,
  freePorts,
  type MonitoringServer,
  readManifests,
  startPrometheus,
  testCrd,
} from '@capstan/envtest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { DaemonSet, HttpTransport, Namespace, Node } from '@capstan/runtime/client';
import { startWebhookReceiver, type WebhookReceiver } from '@capstan/runtime/testing';
import { agentPodKubeConfig, serviceAccountKubeConfig } from '../../src/identities.js';
import { CoordinatorReplicas } from './coordinators.js';
import { HarnessGate } from './gate.js';
import { FleetLedger, type PlannedGroup } from './ledger.js';
import { FaultMachine } from './machine.js';

const NAMESPACE = 'capstan-system';
export const FROM_VERSION = '4459.2.0';
export const TO_VERSION = '4459.2.1';
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

/** The coordinator's and agent's deploy/ manifests, and the gate access example as users apply it. */
async function installOperators(plane: ControlPlane, admin: Client): Promise<void> {
  await plane.installCRDs([
    fileURLToPath(import.meta.resolve('@capstan/coordinator/deploy/crds/rebootgroups.yaml')),
    ...['Probe', 'Vault'].map((kind) =>
      testCrd(
        { group: TEST_GROUP, version: 'v1', kind, plural: `${kind.toLowerCase()}s`, namespaced: false },
        { status: false },
      ),
    ),
  ]);
  for (const name of [NAMESPACE, 'monitoring']) await admin.create(Namespace, { metadata: { name } });
  const deploy = (operator: string, file: string) =>
    readManifests(fileURLToPath(import.meta.resolve(`@capstan/${operator}/deploy/${file}`)));
  for (const operator of ['coordinator', 'agent']) {
    await plane.createObjects(deploy(operator, 'rbac.yaml'));
    await plane.createObjects(deploy(operator, 'admission-policy.yaml'));
  }
  await plane.createObjects(deploy('agent', 'daemonset.yaml'));
  await plane.createObjects(deploy('coordinator', 'examples/gate-access.yaml'));
}

/**
 * Starts it all; `plan`'s groups (given Prometheus's and the webhook's URLs) become RebootGroups of
 * maxUnavailable 1.
 */
export async function startGatedFleet(
  plan: (urls: { prometheus: string; webhook: string }) => GroupPlan[],
  rebootDownMs: number,
): Promise<GatedFleet> {
  const logDir = mkdtempSync(join(tmpdir(), 'capstan-gated-rollout-logs-'));
  const plane = await ControlPlane.start({ controllerManager: true, scheduler: true, kwok: true });
  const cleanups: Array<() => Promise<unknown>> = [() => plane.stop()];
  const stop = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  };
  try {
    const admin = new Client(new HttpTransport(plane.kubeConfig));
    await installOperators(plane, admin);
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

    const coordinatorFile = await plane.serviceAccountKubeConfig(NAMESPACE, 'capstan-coordinator');
    await serviceAccountKubeConfig(plane, NAMESPACE, 'capstan-coordinator', (c) =>
      c.list(Node, { limit: 1 }),
    );
    const coordinators = new CoordinatorReplicas({
      kubeconfigPath: coordinatorFile.path,
      namespace: NAMESPACE,
      logFile: join(logDir, 'coordinators.log'),
      probePorts: (await freePorts(2)) as [number, number],
      args: [`--notify-ca-file=${webhookCa}`],
    });
    coordinators.start();
    cleanups.push(() => coordinators.stop());

    const daemonSet = await admin.get(DaemonSet, { namespace: NAMESPACE, name: 'capstan-agent' });
    const gate = new HarnessGate();
    const faults: string[] = [];
    const machines = new Map<string, FaultMachine>();
    cleanups.push(() => Promise.all([...machines.values()].map((m) => m.stop())));
    const started = await Promise.all(
      groups.flatMap((g) =>
        g.nodes.map((name) =>
          FaultMachine.start({
            name,
            labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', [POOL]: g.name },
            version: FROM_VERSION,
            plane,
            identity: () => agentPodKubeConfig(plane, daemonSet, name),
            logFile: join(logDir, `agent-${name}.log`),
            rebootDownMs,
            gate,
            onFault: (what, err) =>
              faults.push(`${what}: ${err instanceof Error ? err.message : String(err)}`),
          }),
        ),
      ),
    );
    for (const m of started) machines.set(m.name, m);
    return {
      ...{ plane, admin, prometheus, webhook, unhealthy, machines },
      ...{ ledger, coordinators, logDir, faults, stop },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
