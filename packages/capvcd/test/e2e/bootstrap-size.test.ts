/**
 * Bootstrap data size under real Cluster API (CABPK writes the data): a control plane whose
 * KubeadmConfig carries a large file gets its cloud-config gzip+base64 in guestinfo (the guest
 * reads back the Secret's bytes exactly); a worker whose data cannot fit one guestinfo value even
 * gzip'd says BootstrapDataTooLarge and gets no VM.
 */
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { Secret } from '@capstan/runtime/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MachineType, VCDMachineType } from '../../src/index.js';
import { Harness } from './harness.js';

const ns = 'e2e-bootstrap-size';
let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns });
  await h.prepareCluster('s1');
  await h.startProvider();
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

/** A KubeadmConfig carrying `content` as files of at most 10,000 bytes (CABPK's limit per file: 10 KiB). */
const withFiles = (controlPlane: boolean, content: string) => ({
  controlPlane,
  kubeadm: {
    files: Array.from({ length: Math.ceil(content.length / 10_000) }, (_, i) => ({
      path: `/etc/capvcd-test/part-${i}`,
      content: content.slice(i * 10_000, (i + 1) * 10_000),
    })),
  },
});

describe('bootstrap data too large for plain guestinfo', () => {
  it('large: gzip+base64, the Secret’s bytes exactly; too large even gzip’d: BootstrapDataTooLarge, no VM', async () => {
    // ~100 KB of text: over the 64 KiB limit as base64, far under it gzip'd.
    const text = 'node-config: keep-me\n'.repeat(5_000);
    await h.plane.createObjects([
      ...h.clusterObjects('s1', { host: '10.10.0.13', port: 6443 }),
      ...h.machineObjects('s1', 's1-cp-0', withFiles(true, text)),
    ]);
    const vm = await h.wait('the control plane’s VM on', async () => {
      const found = h.sim.inspect.vm('s1-cp-0');
      return found?.status === 4 ? found : undefined;
    });
    expect(vm.extraConfig.get('guestinfo.userdata.encoding')?.value).toBe('gzip+base64');
    const machine = await h.client.get(MachineType, { namespace: ns, name: 's1-cp-0' });
    const secret = await h.client.get(Secret, {
      namespace: ns,
      name: machine.spec?.bootstrap?.dataSecretName as string,
    });
    const sent = gunzipSync(Buffer.from(vm.extraConfig.get('guestinfo.userdata')?.value ?? '', 'base64'));
    expect(sent.equals(Buffer.from(secret.data?.value ?? '', 'base64'))).toBe(true);
    expect(sent.toString()).toContain('node-config: keep-me');

    // ~200 KB of random base64 text: gzip cannot bring it under 64 KiB.
    const noise = randomBytes(150_000).toString('base64');
    await h.plane.createObjects(h.machineObjects('s1', 's1-w-0', withFiles(false, noise)));
    const refused = await h.wait(
      'BootstrapDataTooLarge said',
      async () => {
        const m = await h.client.get(VCDMachineType, { namespace: ns, name: 's1-w-0' });
        return m.status?.conditions?.find((c) => c.reason === 'BootstrapDataTooLarge');
      },
      180_000,
    );
    expect(refused.status).toBe('False');
    expect(refused.message).toMatch(/over the 65536-byte limit of one guestinfo value/);
    expect(h.sim.inspect.vm('s1-w-0')).toBeUndefined();
  }, 400_000);
});
