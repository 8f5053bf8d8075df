/**
 * KubeadmControlPlane (KCP, the real manager) on vcdsim machines through capvcd, with external
 * etcd (tier a): the guests play kubeadm (envtest's KubeadmGuest: static pods, kubeadm-config,
 * control-plane Nodes through kwok), so KCP initializes the control plane, reports it Available,
 * and scales it 1 → 3 → 1 behind the VCD load balancer, leaving no VM behind.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBalancerName } from '../../src/index.js';
import { Harness } from './harness.js';
import { CONTROL_PLANE, kcpClusterObjects } from './kcp-objects.js';

const ns = 'e2e-kcp';
const cluster = 'kcp1';
const kcpPath = `/apis/${CONTROL_PLANE}/v1beta2/namespaces/${ns}/kubeadmcontrolplanes/${cluster}`;
let h: Harness;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Kcp {
  status?: {
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    upToDateReplicas?: number;
    initialization?: { controlPlaneInitialized?: boolean };
    conditions?: Condition[];
  };
}

async function kcp(): Promise<Kcp> {
  const answer = await h.plane.request('GET', kcpPath);
  if (answer.status !== 200) throw new Error(`GET ${kcpPath}: ${JSON.stringify(answer.body)}`);
  return answer.body as Kcp;
}
const condition = (k: Kcp, type: string) => k.status?.conditions?.find((c) => c.type === type);
const kcpText = (k: Kcp) =>
  `KCP replicas ${k.status?.replicas}/${k.status?.readyReplicas}/${k.status?.availableReplicas}; ` +
  (k.status?.conditions ?? []).map((c) => `${c.type}=${c.status} ${c.message ?? ''}`).join('; ');

/** The pool's members (their IPs) in vcdsim. */
const poolMembers = () =>
  (h.vcdObjects().pools.find((p) => p.name === loadBalancerName(ns, cluster))?.members ?? []).map(
    (m) => (m as { ipAddress: string }).ipAddress,
  );

/** Waits until KCP has `replicas` machines, all ready and available, `Available` true, and as many VMs. */
async function settled(replicas: number, timeoutMs = 240_000) {
  let last: Kcp | undefined;
  try {
    return await h.wait(
      `KCP settled at ${replicas} Available replicas`,
      async () => {
        last = await kcp();
        const s = last.status;
        const available = condition(last, 'Available')?.status === 'True';
        const vms = h.vcdObjects().vms.length;
        return available && s?.replicas === replicas && s.availableReplicas === replicas && vms === replicas
          ? last
          : undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${last ? kcpText(last) : 'no KCP read'}`);
  }
}

beforeAll(async () => {
  h = await Harness.start({ namespace: ns, kubeadmControlPlane: true });
  await h.prepareCluster(cluster);
  await h.startProvider();
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

describe('KubeadmControlPlane on vcdsim machines, external etcd', () => {
  it('initializes a 1-replica control plane and reports it Available', { timeout: 300_000 }, async () => {
    // The workload plane's own etcd is the external etcd; a client certificate from its CA names it.
    const client = await h.plane.userKubeConfig('apiserver-etcd-client');
    const user = client.getCurrentUser();
    const etcd = {
      endpoint: h.plane.etcdUrl,
      caPem: readFileSync(join(h.plane.info.workDir, 'pki', 'ca.crt'), 'utf8'),
      certPem: Buffer.from(user?.certData ?? '', 'base64').toString(),
      keyPem: Buffer.from(user?.keyData ?? '', 'base64').toString(),
    };
    await h.plane.createObjects(
      kcpClusterObjects({ namespace: ns, url: h.sim.url }, cluster, etcd, { replicas: 1 }),
    );
    const ready = await settled(1);
    expect(ready.status?.initialization?.controlPlaneInitialized).toBe(true);
    // What the guest left, as kubeadm init would: the kubeadm-config naming the external etcd, the
    // control-plane Node, and its three static pods (no etcd pod: etcd is external).
    const config = await h.plane.request('GET', '/api/v1/namespaces/kube-system/configmaps/kubeadm-config');
    expect((config.body as { data: Record<string, string> }).data.ClusterConfiguration).toContain(
      h.plane.etcdUrl,
    );
    const [guest] = h.guest?.nodes ?? [];
    expect(guest?.step).toBe('init');
    const pods = await h.plane.request(
      'GET',
      '/api/v1/namespaces/kube-system/pods?labelSelector=tier%3Dcontrol-plane',
    );
    const names = (pods.body as { items: Array<{ metadata: { name: string } }> }).items.map(
      (p) => p.metadata.name,
    );
    expect(names.sort()).toEqual(
      ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map((c) => `${c}-${guest?.name}`),
    );
    await h.wait('the control plane in the load balancer pool', async () =>
      poolMembers().length === 1 ? true : undefined,
    );
  });

  it('scales to 3 and back to 1: machines, VMs and pool members follow', { timeout: 600_000 }, async () => {
    await h.plane.request('PATCH', kcpPath, { spec: { replicas: 3 } }, 'application/merge-patch+json');
    await settled(3, 400_000);
    await h.wait('3 pool members', async () => (poolMembers().length === 3 ? true : undefined));
    expect(h.guest?.nodes.filter((n) => n.step === 'join-control-plane')).toHaveLength(2);

    await h.plane.request('PATCH', kcpPath, { spec: { replicas: 1 } }, 'application/merge-patch+json');
    await settled(1, 400_000);
    await h.wait('1 pool member', async () => (poolMembers().length === 1 ? true : undefined));
    expect(h.vcdObjects().vms).toHaveLength(1);
  });
});
