/**
 * Every NIC configured, each in its mode, under real Cluster API and Cluster API's in-cluster IPAM
 * provider (built from the Go module proxy): a machine with three NICs — MANUAL from an
 * InClusterIPPool, DHCP, POOL — gets an IPAddressClaim owned by its VCDMachine, waits for the
 * provider's IPAddress, and its VM is made with that address (IpAddressAllocationMode MANUAL),
 * the DHCP NIC leased by the network's DHCP service and the POOL NIC from VCD's static pool. The
 * guest's cloud-init network config names all three NICs by MAC. Deleting the machine releases
 * the claim, and the provider frees the address.
 */
import { type InClusterIpam, startInClusterIpam } from '@capstan/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IPAddressClaimType, IPAddressType, MachineType, VCDMachineType } from '../../src/index.js';
import { Harness, SCALED_TIMINGS } from './harness.js';

const ns = 'e2e-nic-addressing';
const POOL = { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool', name: 'nodes-a' };
// Inside net-a's subnet, outside VCD's static pool (10.10.0.100-250) and its DHCP pool.
const IPAM_RANGE = ['10.10.0.10', '10.10.0.11', '10.10.0.12'];
let h: Harness;
let ipam: InClusterIpam | undefined;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns });
  ipam = await startInClusterIpam({
    kubeconfigPath: h.plane.kubeconfigPath,
    workDir: h.plane.info.workDir,
    installCRDs: (crds) => h.plane.installCRDs(crds),
  });
  await h.prepareCluster('s1');
  // VMs re-read every 2 s: addresses that come after the primary's (a DHCP lease) join the status.
  await h.startProvider({ ...SCALED_TIMINGS, driftPeriodMs: 2_000 });
}, 1_800_000);
afterAll(async () => {
  await ipam?.stop();
  await h?.stop();
});

const decode = (value: string | undefined) => JSON.parse(Buffer.from(value ?? '', 'base64').toString());

describe('NICs and their addressing', () => {
  it('MANUAL from an InClusterIPPool, DHCP and POOL: each NIC in VCD and in the guest’s network config', async () => {
    await h.plane.createObjects([
      {
        apiVersion: 'ipam.cluster.x-k8s.io/v1alpha2',
        kind: 'InClusterIPPool',
        metadata: { name: POOL.name, namespace: ns },
        spec: { addresses: [`${IPAM_RANGE[0]}-${IPAM_RANGE[2]}`], prefix: 24, gateway: '10.10.0.1' },
      },
      ...h.clusterObjects('s1', { host: '10.10.0.14', port: 6443 }),
      ...h.machineObjects('s1', 's1-cp-0', {
        vcdMachine: {
          extraOvdcNetworks: ['net-a-storage', 'net-a-ips'],
          networkInterfaces: [
            { ipAllocationMode: 'MANUAL', addressesFromPools: [POOL] },
            { ipAllocationMode: 'DHCP' },
            { ipAllocationMode: 'POOL' },
          ],
        },
      }),
    ]);

    // The claim: one per MANUAL NIC, controlled by the VCDMachine, on the pool named.
    const vcdMachine = await h.wait('the VCDMachine', () =>
      h.client.get(VCDMachineType, { namespace: ns, name: 's1-cp-0' }).catch(() => undefined),
    );
    const claim = await h.wait('the IPAddressClaim answered', async () => {
      const c = await h.client
        .get(IPAddressClaimType, { namespace: ns, name: 's1-cp-0-nic-0' })
        .catch(() => undefined);
      return c?.status?.addressRef?.name ? c : undefined;
    });
    expect(claim.spec.poolRef).toEqual(POOL);
    expect(claim.spec.clusterName).toBe('s1');
    expect(claim.metadata.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'VCDMachine',
        name: 's1-cp-0',
        uid: vcdMachine.metadata.uid,
        controller: true,
      }),
    ]);
    const address = await h.client.get(IPAddressType, {
      namespace: ns,
      name: claim.status?.addressRef?.name as string,
    });
    expect(IPAM_RANGE).toContain(address.spec.address);
    expect(address.spec.prefix).toBe(24);

    // The VM: NIC 0 MANUAL with the claimed address, NIC 1 leased by DHCP, NIC 2 from the static pool.
    const vm = await h.wait('the VM on with all its addresses', async () => {
      const found = h.sim.inspect.vm('s1-cp-0');
      return found?.status === 4 && found.nics.every((n) => n.ipAddress) ? found : undefined;
    });
    const byIndex = [...vm.nics].sort((a, b) => a.index - b.index);
    expect(byIndex.map((n) => [n.network, n.allocationMode])).toEqual([
      ['net-a', 'MANUAL'],
      ['net-a-storage', 'DHCP'],
      ['net-a-ips', 'POOL'],
    ]);
    expect(byIndex[0]?.ipAddress).toBe(address.spec.address);
    expect(byIndex[1]?.ipAddress).toMatch(/^10\.30\.0\.(2\d|[3-5]\d|60)$/);
    expect(byIndex[2]?.ipAddress).toMatch(/^10\.60\.0\.1\d\d$/);

    // The guest: every NIC by its MAC; MANUAL static with the default route, the others by DHCP
    // (a POOL address is VCD's only from power-on, after the guestinfo was written).
    const meta = decode(h.booted.get('s1-cp-0')?.['guestinfo.metadata']);
    expect(meta.network).toEqual({
      version: 2,
      ethernets: {
        eth0: {
          match: { macaddress: byIndex[0]?.macAddress },
          'set-name': 'eth0',
          dhcp4: false,
          addresses: [`${address.spec.address}/24`],
          routes: [{ to: 'default', via: '10.10.0.1' }],
          nameservers: { addresses: ['10.10.0.2'] },
        },
        eth1: { match: { macaddress: byIndex[1]?.macAddress }, 'set-name': 'eth1', dhcp4: true },
        eth2: { match: { macaddress: byIndex[2]?.macAddress }, 'set-name': 'eth2', dhcp4: true },
      },
    });

    // The machine reports each NIC's address, the primary's first (the others once the drift
    // check's re-read sees them: the MANUAL primary is VCD's at once, provisioned before the lease).
    const internal = await h.wait('every NIC’s address in the VCDMachine’s status', async () => {
      const m = await h.client.get(VCDMachineType, { namespace: ns, name: 's1-cp-0' });
      const ips = m.status?.addresses?.filter((a) => a.type === 'InternalIP').map((a) => a.address);
      return m.status?.initialization?.provisioned && ips?.length === 3 ? ips : undefined;
    });
    expect(internal[0]).toBe(address.spec.address);
    expect(new Set(internal)).toEqual(new Set(byIndex.map((n) => n.ipAddress)));

    // Deleting the machine: the VM goes, then the claim, and the provider frees the address.
    await h.client.delete(MachineType, { namespace: ns, name: 's1-cp-0' });
    await h.wait(
      'the claim and its address released',
      async () => {
        const c = await h.client
          .get(IPAddressClaimType, { namespace: ns, name: 's1-cp-0-nic-0' })
          .catch(() => undefined);
        const a = await h.client
          .get(IPAddressType, { namespace: ns, name: address.metadata.name as string })
          .catch(() => undefined);
        return !c && !a ? true : undefined;
      },
      300_000,
    );
    expect(h.sim.inspect.vm('s1-cp-0')).toBeUndefined();
  }, 900_000);
  it('waits for an address without a VM until the pool exists; more entries than NICs are refused', async () => {
    await h.prepareCluster('s2');
    const late = { ...POOL, name: 'late' };
    await h.plane.createObjects([
      ...h.clusterObjects('s2', { host: '10.10.0.16', port: 6443 }),
      ...h.machineObjects('s2', 's2-cp-0', {
        vcdMachine: { networkInterfaces: [{ ipAllocationMode: 'MANUAL', addressesFromPools: [late] }] },
      }),
    ]);
    const reasonOf = async (name: string, reason: string) => {
      const m = await h.client.get(VCDMachineType, { namespace: ns, name });
      return m.status?.conditions?.find((c) => c.reason === reason);
    };
    const waiting = await h.wait('WaitingForIPAddress said', () =>
      reasonOf('s2-cp-0', 'WaitingForIPAddress'),
    );
    expect(waiting.message).toMatch(/no address yet for IPAddressClaim s2-cp-0-nic-0/);
    expect(h.sim.inspect.vm('s2-cp-0')).toBeUndefined();

    // The pool appears: the provider answers the claim, whose update brings the machine back.
    await h.plane.createObjects([
      {
        apiVersion: 'ipam.cluster.x-k8s.io/v1alpha2',
        kind: 'InClusterIPPool',
        metadata: { name: 'late', namespace: ns },
        spec: { addresses: ['10.10.0.13'], prefix: 24, gateway: '10.10.0.1' },
      },
    ]);
    const vm = await h.wait('s2-cp-0’s VM with the pool’s address', async () => {
      const found = h.sim.inspect.vm('s2-cp-0');
      return found?.nics[0]?.requestedIp ? found : undefined;
    });
    expect(vm.nics.map((n) => [n.allocationMode, n.requestedIp])).toEqual([['MANUAL', '10.10.0.13']]);

    // A worker (join data once the control plane is up) naming two NICs on one network: refused.
    await h.plane.createObjects(
      h.machineObjects('s2', 's2-w-0', {
        controlPlane: false,
        vcdMachine: { networkInterfaces: [{ ipAllocationMode: 'DHCP' }, { ipAllocationMode: 'DHCP' }] },
      }),
    );
    const refused = await h.wait(
      'InvalidNetworkInterfaces said',
      () => reasonOf('s2-w-0', 'InvalidNetworkInterfaces'),
      240_000,
    );
    expect(refused.message).toMatch(/networkInterfaces has 2 entries but the VM has 1 NICs/);
    expect(h.sim.inspect.vm('s2-w-0')).toBeUndefined();
  }, 600_000);
});
