/**
 * capvcd's image, built from packages/capvcd/Dockerfile and run as deploy/manager.yaml's
 * Deployment runs it (uid 65532, read-only root file system, every capability dropped, no
 * privilege escalation, the Deployment's args) as its ServiceAccount, against a management
 * cluster with real Cluster API and vcdsim on the host: ready, it provisions a control-plane
 * Machine's VM in vcdsim to Running, and on SIGTERM exits 0.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateAuthority } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MachineType, PROVIDER_ID_PREFIX, VCDMachineType } from '../../packages/capvcd/src/index.js';
import { Harness } from '../../packages/capvcd/test/e2e/harness.js';
import { build, type ImageUnderTest, start } from './fixture.js';
import { imageName } from './podman.js';

const ns = 'capvcd-image';
const image: ImageUnderTest = {
  tag: imageName('capvcd'),
  dockerfile: 'packages/capvcd/Dockerfile',
  manifest: 'packages/capvcd/deploy/manager.yaml',
};
let h: Harness;
let webhookCert: string;

/**
 * The conversion webhook's serving certificate as webhook.yaml's cert-manager Certificate writes
 * its Secret (`tls.crt`, `tls.key`), in a folder uid 65532 can read.
 */
function webhookCertFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'capvcd-webhook-cert-'));
  const pair = CertificateAuthority.create('capvcd-webhook-ca').issueServing('capstan-capvcd-webhook');
  writeFileSync(join(dir, 'tls.crt'), pair.cert);
  writeFileSync(join(dir, 'tls.key'), pair.key);
  for (const f of ['tls.crt', 'tls.key']) chmodSync(join(dir, f), 0o644);
  chmodSync(dir, 0o755);
  return dir;
}

beforeAll(async () => {
  webhookCert = webhookCertFolder();
  await build(image);
  h = await Harness.start({ namespace: ns });
  // The credentials Secret carries vcdsim's CA, so the Deployment's args need nothing added.
  await h.prepareCluster('m1');
}, 900_000);
afterAll(async () => {
  await h?.stop();
  if (webhookCert) rmSync(webhookCert, { recursive: true, force: true });
});

describe('the capvcd image', () => {
  it('gets ready and provisions a Machine to Running in vcdsim', async () => {
    const kubeconfig = await h.plane.serviceAccountKubeConfig('capvcd-system', 'capstan-capvcd');
    const { container, stop } = await start(image, {
      kubeconfig: readFileSync(kubeconfig.path, 'utf8'),
      fields: {},
      hostPaths: { 'webhook-cert': webhookCert },
    });
    try {
      await h.plane.createObjects([
        ...h.clusterObjects('m1', { host: '10.10.0.9', port: 6443 }),
        ...h.controlPlaneObjects('m1', 'm1-cp-0'),
      ]);
      const machine = await h
        .wait(
          'm1-cp-0 Running with a nodeRef',
          async () => {
            const m = await h.client.get(MachineType, { namespace: ns, name: 'm1-cp-0' });
            return m.status?.phase === 'Running' && m.status.nodeRef ? m : undefined;
          },
          180_000,
        )
        .catch((err: Error) => {
          throw new Error(`${err.message}\n${container.logs()}`);
        });
      const vcdMachine = await h.client.get(VCDMachineType, { namespace: ns, name: 'm1-cp-0' });
      const vm = h.sim.inspect.vm('m1-cp-0');
      expect(vm, container.logs()).toBeDefined();
      expect(vcdMachine.spec.providerID).toBe(`${PROVIDER_ID_PREFIX}urn:vcloud:vm:${vm?.id}`);
      expect(machine.spec?.providerID).toBe(vcdMachine.spec.providerID);
      expect(h.provider).toBeUndefined(); // nothing in this process reconciled it
    } finally {
      expect(await stop(), container.logs()).toBe(0);
    }
  }, 300_000);
});
