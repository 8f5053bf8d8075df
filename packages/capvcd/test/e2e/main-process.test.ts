/**
 * The built provider (`dist/main.js`) as a separate process, as the Deployment runs it: deploy/'s
 * CRDs, Namespace, RBAC and ServiceAccount applied; the Deployment's own args, with the
 * ServiceAccount's kubeconfig, local bind addresses and vcdsim's CA from `--vcd-ca-bundle` (the
 * credentials Secret carries none). It provisions a Machine to Running under real Cluster API,
 * holds the leader lease while it runs, and on SIGTERM releases it and exits 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readManifests } from '@capstan/envtest';
import { Lease } from '@capstan/runtime/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VCDMachineV1beta2Type } from '../../src/api/generated/types.js';
import { MachineType, PROVIDER_ID_PREFIX, VCDMachineType } from '../../src/index.js';
import { deploy, Harness } from './harness.js';

const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const ns = 'e2e-main';
let h: Harness;

/** The Deployment's container args. */
function deploymentArgs(): string[] {
  const deployment = readManifests(deploy('manager.yaml')).find((o) => o.kind === 'Deployment') as {
    spec: { template: { spec: { containers: Array<{ name: string; args: string[] }> } } };
  };
  return deployment.spec.template.spec.containers.find((c) => c.name === 'manager')?.args ?? [];
}

/** Runs main.js; its output is kept to explain a failure. */
function run(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exit, output: () => output.slice(-3000) };
}

beforeAll(async () => {
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  h = await Harness.start({ namespace: ns, conversionWebhook: true });
  await h.prepareCluster('m1', { caInSecret: false });
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

describe('capstan-capvcd as a process', () => {
  it('exits 2 naming the flag when --vcd-ca-bundle is unusable', async () => {
    const p = run(['--vcd-ca-bundle=/nonexistent/ca.pem', '--metrics-bind-address=0']);
    expect(await p.exit).toBe(2);
    expect(p.output()).toContain('error: --vcd-ca-bundle /nonexistent/ca.pem: ENOENT');
  });

  it('provisions a Machine to Running as its ServiceAccount; SIGTERM releases the lease and exits 0', async () => {
    const kubeconfig = await h.plane.serviceAccountKubeConfig('capvcd-system', 'capstan-capvcd');
    const ca = join(dirname(kubeconfig.path), 'vcd-ca.pem'); // removed with the control plane
    writeFileSync(ca, h.sim.caPem);
    const p = run([
      ...deploymentArgs(),
      `--kubeconfig=${kubeconfig.path}`,
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
      `--vcd-ca-bundle=${ca}`,
      // The conversion webhook, as clusterctl's components run it, where the CRDs' conversion points.
      '--conversion-webhook',
      `--webhook-port=${h.webhooks?.port}`,
      `--webhook-cert-dir=${h.webhooks?.certDir}`,
      '--log-level=info',
    ]);
    const exited = p.exit.then((code) => {
      throw new Error(`main.js exited ${code} early:\n${p.output()}`);
    });
    exited.catch(() => {});
    try {
      await h.plane.createObjects([
        ...h.clusterObjects('m1', { host: '10.10.0.9', port: 6443 }),
        ...h.controlPlaneObjects('m1', 'm1-cp-0'),
      ]);
      const running = h.wait('m1-cp-0 Running with a nodeRef', async () => {
        const m = await h.client.get(MachineType, { namespace: ns, name: 'm1-cp-0' });
        return m.status?.phase === 'Running' && m.status.nodeRef ? m : undefined;
      });
      const machine = await Promise.race([running, exited]);
      const vcdMachine = await h.client.get(VCDMachineType, { namespace: ns, name: 'm1-cp-0' });
      const vm = h.sim.inspect.vm('m1-cp-0');
      expect(vcdMachine.spec.providerID).toBe(`${PROVIDER_ID_PREFIX}urn:vcloud:vm:${vm?.id}`);
      expect(machine.spec?.providerID).toBe(vcdMachine.spec.providerID);
      expect(h.provider).toBeUndefined(); // nothing in this process reconciled it
      // CAPVCD's v1beta2, converted by main.js's webhook.
      const asV1beta2 = await h.client.get(VCDMachineV1beta2Type, { namespace: ns, name: 'm1-cp-0' });
      expect(asV1beta2.spec.providerID).toBe(vcdMachine.spec.providerID);
      const lease = await h.client.get(Lease, { namespace: 'capvcd-system', name: 'capstan-capvcd' });
      expect(lease.spec?.holderIdentity).toBeTruthy();
    } finally {
      p.child.kill('SIGTERM');
    }
    expect(await p.exit, p.output()).toBe(0);
    const lease = await h.client.get(Lease, { namespace: 'capvcd-system', name: 'capstan-capvcd' });
    expect(lease.spec?.holderIdentity ?? '').toBe('');
  }, 300_000);
});
