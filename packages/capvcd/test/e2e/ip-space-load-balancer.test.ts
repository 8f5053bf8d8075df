/**
 * The control-plane load balancer on an edge gateway that allocates from IP Spaces (VCD 10.4.1+,
 * vcdsim's edge-a-ips over public-ips), under real Cluster API: the VCDCluster reserves a floating
 * IP, records it as its VIP (and that it reserved it), makes pool and virtual service on it, and
 * releases the reservation once both are gone. A VIP the user reserved and gave is used and kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESERVED_VIP_ANNOTATION, VCDClusterType } from '../../src/index.js';
import { Harness } from './harness.js';

const ns = 'e2e-ips';
let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns, taskLatencyMs: 150 });
  await h.prepareCluster('ips1');
  await h.prepareCluster('ips2');
  await h.startProvider();
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const space = () => [...h.sim.inspect.world.ipSpaces.values()].find((s) => s.name === 'public-ips')!;
const allocation = (ip: string) => [...space().allocations.values()].find((a) => a.value === ip);

const provisioned = (name: string) =>
  h.wait(`${name} provisioned`, async () => {
    const c = await h.client.get(VCDClusterType, { namespace: ns, name });
    return c.status?.initialization?.provisioned ? c : undefined;
  });

const deleteCluster = async (name: string) => {
  await h.plane.request('DELETE', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/${name}`);
  await h.wait(
    `VCDCluster ${name} gone`,
    async () => {
      const left = (await h.client.list(VCDClusterType, { namespace: ns })).items;
      return left.some((c) => c.metadata.name === name) ? undefined : true;
    },
    240_000,
  );
};

describe('the load balancer on a gateway using IP Spaces', () => {
  it('reserves a floating IP for the VIP, uses it, and releases it when the cluster goes', async () => {
    await h.plane.createObjects(h.clusterWith('ips1', { network: 'net-a-ips' }));
    const c = await provisioned('ips1');
    const vip = c.spec.controlPlaneEndpoint?.host as string;
    expect(vip).toMatch(/^198\.51\.100\./);
    expect(c.metadata.annotations?.[RESERVED_VIP_ANNOTATION]).toBe(vip);
    expect(allocation(vip)).toMatchObject({ type: 'FLOATING_IP', usageState: 'USED' });
    expect(h.vcdObjects().virtualServices.map((v) => v.virtualIpAddress)).toEqual([vip]);
    // One reservation, through the task's result: never a second one, never an uplink address.
    const reservations = h.sim.inspect
      .requests()
      .filter((r) => r.route === '/cloudapi/1.0.0/ipSpaces/{id}/allocate');
    expect(reservations).toHaveLength(1);
    expect(space().allocations.size).toBe(1);

    await deleteCluster('ips1');
    expect(h.vcdObjects().virtualServices).toEqual([]);
    expect(h.vcdObjects().pools).toEqual([]);
    expect(allocation(vip)).toBeUndefined();
    expect(h.sim.inspect.unfinishedTasks()).toEqual([]);
  }, 300_000);

  it('uses a floating IP the user reserved and gave as host, and leaves it reserved', async () => {
    const s = space();
    s.allocations.set('00000000-0000-4000-8000-000000000001', {
      id: '00000000-0000-4000-8000-000000000001',
      orgId: [...h.sim.inspect.world.orgs.values()].find((o) => o.name === 'tenant-a')!.id,
      type: 'FLOATING_IP',
      value: '198.51.100.20',
      description: 'reserved by the user',
      usageState: 'UNUSED',
      allocationDate: 0,
    });
    await h.plane.createObjects(h.clusterWith('ips2', { network: 'net-a-ips', vip: '198.51.100.20' }));
    const c = await provisioned('ips2');
    expect(c.spec.controlPlaneEndpoint?.host).toBe('198.51.100.20');
    expect(c.metadata.annotations?.[RESERVED_VIP_ANNOTATION]).toBeUndefined();
    expect(allocation('198.51.100.20')?.usageState).toBe('USED');
    await deleteCluster('ips2');
    expect(allocation('198.51.100.20')).toMatchObject({
      usageState: 'UNUSED',
      description: 'reserved by the user',
    });
  }, 300_000);
});
