/**
 * The control-plane load balancer (NSX-T ALB in vcdsim), under real Cluster API: with no endpoint
 * given, the VCDCluster takes a VIP from the edge gateway, makes a pool (TCP health monitor) and a
 * virtual service named from the cluster, records the VIP in spec; the control-plane VM joins the
 * pool only once provisioned (#220); deleting the Cluster removes virtual service, pool and VIP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClusterType,
  loadBalancerName,
  MANAGED_ENDPOINT_ANNOTATION,
  MachineType,
  VCDClusterType,
  VCDMachineType,
} from '../../src/index.js';
import { Harness } from './harness.js';

const ns = 'e2e-lb';
let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns, taskLatencyMs: 150 });
  await h.prepareCluster('lb1');
  await h.startProvider();
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const edge = () => [...h.sim.inspect.world.edgeGateways.values()][0]!;

describe('the control-plane load balancer', () => {
  it('takes a VIP, makes one pool and one virtual service, adds the control plane once provisioned', async () => {
    await h.plane.createObjects([...h.clusterObjects('lb1'), ...h.controlPlaneObjects('lb1', 'lb1-cp-0')]);
    const vcdCluster = await h.wait('the VCDCluster provisioned', async () => {
      const c = await h.client.get(VCDClusterType, { namespace: ns, name: 'lb1' });
      return c.status?.initialization?.provisioned ? c : undefined;
    });
    const vip = vcdCluster.spec.controlPlaneEndpoint?.host as string;
    expect(vcdCluster.spec.controlPlaneEndpoint?.port).toBe(6443);
    expect(vcdCluster.metadata.annotations?.[MANAGED_ENDPOINT_ANNOTATION]).toBe('true');
    expect(edge().used.get(vip)?.category).toBe('LOAD_BALANCER');
    const name = loadBalancerName(ns, 'lb1');
    const { pools, virtualServices } = h.vcdObjects();
    expect(pools.map((p) => p.name)).toEqual([name]);
    expect(pools[0]?.healthMonitors).toEqual([{ type: 'TCP' }]);
    expect(virtualServices.map((v) => [v.name, v.virtualIpAddress])).toEqual([[name, vip]]);
    // Cluster API takes the endpoint from the VCDCluster.
    await h.wait('the Cluster’s endpoint', async () => {
      const c = await h.client.get(ClusterType, { namespace: ns, name: 'lb1' });
      return c.spec?.controlPlaneEndpoint?.host === vip ? c : undefined;
    });

    await h.wait('the control-plane Machine Running', async () => {
      const m = await h.client.get(MachineType, { namespace: ns, name: 'lb1-cp-0' });
      return m.status?.nodeRef ? m : undefined;
    });
    const cp = await h.client.get(VCDMachineType, { namespace: ns, name: 'lb1-cp-0' });
    const ip = cp.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
    await h.wait('the control plane in the pool and the virtual service UP', async () => {
      const pool = h.vcdObjects().pools[0];
      const c = await h.client.get(VCDClusterType, { namespace: ns, name: 'lb1' });
      return pool?.members.map((m) => m.ipAddress).join() === ip &&
        /health UP/.test(c.status?.conditions?.find((x) => x.type === 'LoadBalancerAvailable')?.message ?? '')
        ? true
        : undefined;
    });
    // The member was added after the VM was powered on and had its address, not before (#220).
    const log = h.sim.inspect.requests();
    const powerOn =
      log.find((r) => r.route.endsWith('/power/action/powerOn'))?.seq ?? Number.POSITIVE_INFINITY;
    const memberAdd =
      log.find((r) => r.method === 'PUT' && r.route.startsWith('/cloudapi/1.0.0/loadBalancer/pools/'))?.seq ??
      0;
    expect(memberAdd).toBeGreaterThan(powerOn);
    expect(h.vcdObjects().pools).toHaveLength(1);
    expect(h.vcdObjects().virtualServices).toHaveLength(1);
  }, 300_000);

  it('deleting the Cluster removes virtual service, pool, VIP, VM and vApp', async () => {
    const vip = (await h.client.get(VCDClusterType, { namespace: ns, name: 'lb1' })).spec.controlPlaneEndpoint
      ?.host as string;
    await h.plane.request('DELETE', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/lb1`);
    await h.wait(
      'the VCDCluster gone',
      async () =>
        (await h.client.list(VCDClusterType, { namespace: ns })).items.length === 0 ? true : undefined,
      240_000,
    );
    const left = h.vcdObjects();
    expect(left).toEqual({ vms: [], vapps: [], pools: [], virtualServices: [] });
    expect(edge().used.get(vip)).toBeUndefined();
    expect(h.sim.inspect.unfinishedTasks()).toEqual([]);
  }, 300_000);
});

describe('a host given in controlPlaneEndpoint (CAPVCD’s meaning: the VIP asked for)', () => {
  /** The VCDCluster's LoadBalancerAvailable condition once its reason is `reason`. */
  const refused = (name: string, reason: string) =>
    h.wait(`VCDCluster ${name}: LoadBalancerAvailable ${reason}`, async () => {
      const c = await h.client.get(VCDClusterType, { namespace: ns, name });
      return c.status?.conditions?.find((x) => x.type === 'LoadBalancerAvailable' && x.reason === reason);
    });

  it('makes the load balancer with that VIP', async () => {
    await h.prepareCluster('lb2');
    await h.plane.createObjects(h.clusterWith('lb2', { vip: '203.0.113.40' }));
    const provisioned = await h.wait('lb2 provisioned', async () => {
      const c = await h.client.get(VCDClusterType, { namespace: ns, name: 'lb2' });
      return c.status?.initialization?.provisioned ? c : undefined;
    });
    expect(provisioned.spec.controlPlaneEndpoint).toEqual({ host: '203.0.113.40', port: 6443 });
    expect(h.vcdObjects().virtualServices.map((v) => v.virtualIpAddress)).toEqual(['203.0.113.40']);
    expect(edge().used.get('203.0.113.40')?.category).toBe('LOAD_BALANCER');
  }, 120_000);

  it('a VIP VCD refuses (outside the gateway’s ranges, or in use) is VIPRefused, made nowhere', async () => {
    await h.prepareCluster('lb3');
    await h.prepareCluster('lb4');
    await h.plane.createObjects([
      ...h.clusterWith('lb3', { vip: '198.51.100.7' }),
      ...h.clusterWith('lb4', { vip: '203.0.113.40' }), // lb2's
    ]);
    for (const name of ['lb3', 'lb4']) {
      const lb = await refused(name, 'VIPRefused');
      expect(lb.message).toMatch(/VCD refused the VIP .* of spec.controlPlaneEndpoint.host/);
    }
    expect(h.vcdObjects().virtualServices).toHaveLength(1); // lb2's only
  }, 120_000);

  it('a DNS name cannot be a VIP: EndpointNotAnIP, no VCD call', async () => {
    await h.prepareCluster('lb5');
    const before = h.lastSeq();
    await h.plane.createObjects(h.clusterWith('lb5', { vip: 'api.example.com' }));
    const lb = await refused('lb5', 'EndpointNotAnIP');
    expect(lb.message).toContain('loadBalancerConfigSpec.disabled');
    // lb3's and lb4's refused virtual services are retried meanwhile (backing off); nothing else.
    expect(h.writesSince(before).filter((w) => !w.endsWith('/loadBalancer/virtualServices'))).toEqual([]);
    expect(h.vcdObjects().pools.map((p) => p.name)).not.toContain(loadBalancerName(ns, 'lb5'));
  }, 120_000);
});
