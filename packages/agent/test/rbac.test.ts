/**
 * The agent's RBAC: deploy/rbac.yaml is what `capstan gen rbac` makes of its wiring, and run under
 * a ServiceAccount bound to exactly those rules (envtest), a whole cycle (report, cordon, drain a
 * pod through the Eviction API, reboot) is never refused, and every rule is used or its non-use
 * explained below.
 */
import { fileURLToPath } from 'node:url';
import { genRbacFile } from '@capstan/cli';
import { readManifests, serviceAccountUnder } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { HttpTransport, Node, Pod } from '@capstan/runtime/client';
import { auditRbac, eventually, recordingTransport } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { AGENT_RBAC, rbacWiring } from '../src/index.js';
import { annotate, createNode, ManualSource, uniqueName } from './helpers.js';

const rbacFile = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
const env = useControlPlane('agent-rbac');
const k = capstanProtocol.annotations;

/** Grants this test's cycle does not reach, and why each stays. */
const JUSTIFIED = {
  'patch events.k8s.io/events': 'a repeated event patches its series; one cycle records none twice',
  'patch nodes/status':
    'the RebootQuarantined and RebootSourceError conditions: this cycle neither quarantines nor fails its source',
};

describe('the agent RBAC', () => {
  it('is generated from the wiring (run `npm run build && npm run gen:rbac -w packages/agent`)', async () => {
    const { outcome } = await genRbacFile({
      module: fileURLToPath(new URL('../src/rbac.ts', import.meta.url)),
      ...AGENT_RBAC,
      output: rbacFile,
      check: true,
      regenerate: 'npm run build && npm run gen:rbac -w packages/agent',
    });
    expect(outcome).toBe('unchanged');
  });

  it('lets a whole reboot cycle do all it does under its ServiceAccount, and grants nothing unexplained', async () => {
    const admin = new Client(new HttpTransport(env.kubeConfig));
    const node = uniqueName('rbac-node');
    await createNode(admin, node, { bootID: 'boot-1' });
    await admin.create(Pod, {
      metadata: { name: `${node}-web`, namespace: env.namespace },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'registry.invalid/web:1' }] },
    } as Pod);

    const kubeConfig = await serviceAccountUnder(
      env.plane,
      AGENT_RBAC.serviceAccount,
      readManifests(rbacFile),
    );
    // The authorizer takes the new bindings in a moment; the run starts once they hold.
    const agentClient = new Client(new HttpTransport(kubeConfig));
    await eventually(async () => (await agentClient.list(Node, { limit: 1 })) && true, {
      what: 'the generated RBAC to take effect',
      timeoutMs: 20_000,
    });
    const { transport, requests } = recordingTransport(new HttpTransport(kubeConfig));
    let reboots = 0;
    const manager = rbacWiring(
      { transport, metricsBindAddress: '0', healthProbeBindAddress: '0', logLevel: 'silent' },
      {
        nodeName: node,
        source: new ManualSource({ rebootNeeded: true }),
        rebooter: { reboot: async () => void reboots++ },
        osReleasePath: '/nonexistent/os-release',
        drainGracePeriodSeconds: 0,
        podPollMs: 100,
      },
    );
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      await eventually(
        async () => (await admin.get(Node, { name: node })).metadata.annotations?.[k.rebootNeeded] === 'true',
        { what: 'reboot-needed reported', timeoutMs: 30_000 },
      );
      await annotate(admin, node, { [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: 'boot-1' });
      await eventually(async () => reboots > 0, { what: 'the node drained and rebooted', timeoutMs: 30_000 });
    } finally {
      stop.abort();
      await running;
    }
    const { items: left } = await admin.list(Pod, { namespace: env.namespace });
    expect(left.map((p) => p.metadata.name)).not.toContain(`${node}-web`);
    const audit = auditRbac(manager.permissions.list(), requests, JUSTIFIED);
    expect(audit.missing, 'requests refused (403): a rule is missing').toEqual([]);
    expect(audit.unused, 'rules no request used').toEqual([]);
  }, 90_000);
});
