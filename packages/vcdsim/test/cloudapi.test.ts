/** CloudAPI over HTTPS: compute policies, networks, edge gateways, ALB pools and virtual services with health. */
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { request, startVirtual, Tenant } from './client.js';
import { addVms, boot, composeVApp, lookups } from './flows.js';

describe('CloudAPI', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  let bob: Tenant;
  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
    bob = await Tenant.login(sim, 'bob', 'tenant-b');
  });
  afterAll(() => sim.stop());

  const body = (res: { text: string }) => JSON.parse(res.text);

  /** Follows a 202 + Location task to its end. */
  async function done(res: {
    status: number;
    headers: Record<string, unknown>;
    text: string;
  }): Promise<string> {
    expect(res.status, res.text).toBe(202);
    expect(res.text).toBe('');
    const location = new URL(String(res.headers.location)).pathname;
    expect(location).toMatch(/^\/api\/task\/[0-9a-f-]{36}$/);
    sim.clock.advance(5000);
    const xmlStatus = /status="(\w+)"/.exec((await alice.xml('GET', location)).text)![1]!;
    // The same task in the legacy API's JSON form.
    const asJson = await request(sim, 'GET', location, {
      headers: { Accept: 'application/*+json;version=37.2', Authorization: `Bearer ${alice.token}` },
    });
    expect(asJson.headers['content-type']).toBe('application/vnd.vmware.vcloud.task+json;version=37.2');
    expect(JSON.parse(asJson.text)).toMatchObject({
      status: xmlStatus,
      progress: 100,
      owner: { type: 'application/json' },
    });
    return xmlStatus;
  }

  it('lists compute policies in the paged envelope, v1 and v2, with FIQL filters', async () => {
    const all = body(await alice.json('GET', '/cloudapi/1.0.0/vdcComputePolicies?pageSize=2'));
    expect(all).toMatchObject({ resultTotal: 4, pageCount: 2, page: 1, pageSize: 2 });
    expect(all.values).toHaveLength(2);
    const small = body(await alice.json('GET', '/cloudapi/2.0.0/vdcComputePolicies?filter=name==small'));
    expect(small.values).toHaveLength(1);
    expect(small.values[0]).toMatchObject({
      name: 'small',
      cpuCount: 2,
      memory: 4096,
      isSizingOnly: true,
      policyType: 'VdcVmPolicy',
    });
    expect(small.values[0].id).toMatch(/^urn:vcloud:vdcComputePolicy:/);
    const one = await alice.json('GET', `/cloudapi/1.0.0/vdcComputePolicies/${small.values[0].id}`);
    expect(body(one).name).toBe('small');
    expect(one.headers['content-type']).toBe('application/json;version=37.2');
    expect(
      body(await alice.json('GET', `/cloudapi/2.0.0/vdcComputePolicies/${small.values[0].id}`)).policyType,
    ).toBe('VdcVmPolicy');
    const provider = await request(sim, 'POST', '/cloudapi/1.0.0/sessions/provider', {
      headers: {
        Accept: 'application/json;version=37.2',
        Authorization: `Basic ${Buffer.from('alice@tenant-a:alice-password').toString('base64')}`,
      },
    });
    expect(provider.status).toBe(401);
    // Bob's org has "small" but not "large".
    expect(
      body(await bob.json('GET', '/cloudapi/1.0.0/vdcComputePolicies?filter=name==large')).resultTotal,
    ).toBe(0);
  });

  it("lists the caller's org and VDCs", async () => {
    const orgs = body(await alice.json('GET', '/cloudapi/1.0.0/orgs'));
    expect(orgs.values.map((o: { name: string }) => o.name)).toEqual(['tenant-a']);
    expect(body(await alice.json('GET', `/cloudapi/1.0.0/orgs/${orgs.values[0].id}`)).displayName).toBe(
      'Tenant A',
    );
    expect((await bob.json('GET', `/cloudapi/1.0.0/orgs/${orgs.values[0].id}`)).status).toBe(403);
    const vdcs = body(await alice.json('GET', '/cloudapi/1.0.0/vdcs?filter=name==vdc-a'));
    expect(vdcs.values[0]).toMatchObject({ name: 'vdc-a', org: { name: 'tenant-a' } });
    expect(body(await alice.json('GET', `/cloudapi/1.0.0/vdcs/${vdcs.values[0].id}`)).name).toBe('vdc-a');
    expect((await alice.json('GET', '/cloudapi/1.0.0/vdcs/not-a-urn')).status).toBe(403);
  });

  it('finds the edge gateway through the network and reports its uplink IPs', async () => {
    // Paging past the end gives an empty page (clients page until one comes back empty).
    expect(body(await alice.json('GET', '/cloudapi/1.0.0/orgVdcNetworks?page=2&pageSize=32'))).toMatchObject({
      resultTotal: 2,
      pageCount: 1,
      page: 2,
      values: [],
    });
    expect((await alice.json('GET', '/cloudapi/1.0.0/orgVdcNetworks?pageSize=0')).status).toBe(400);
    const nets = body(await alice.json('GET', '/cloudapi/1.0.0/orgVdcNetworks?filter=name==net-a'));
    const net = nets.values[0];
    expect(net).toMatchObject({ networkType: 'NAT_ROUTED', connection: { routerRef: { name: 'edge-a' } } });
    expect(net.subnets.values[0]).toMatchObject({
      gateway: '10.10.0.1',
      prefixLength: 24,
      ipRanges: { values: [{ startAddress: '10.10.0.100', endAddress: '10.10.0.250' }] },
    });
    const gwId = net.connection.routerRef.id;
    const gw = body(await alice.json('GET', `/cloudapi/1.0.0/edgeGateways/${gwId}`));
    expect(gw.edgeGatewayUplinks[0].subnets.values[0]).toMatchObject({
      primaryIp: '203.0.113.10',
      totalIpCount: 41,
      usedIpCount: 1,
    });
    expect(gw.edgeGatewayUplinks[0].usingIpSpace).toBe(false);
    const used = body(await alice.json('GET', `/cloudapi/1.0.0/edgeGateways/${gwId}/usedIpAddresses`));
    expect(used.values.map((u: { ipAddress: string }) => u.ipAddress)).toEqual(['203.0.113.10']);
    expect((await bob.json('GET', `/cloudapi/1.0.0/edgeGateways/${gwId}`)).status).toBe(403);
    expect(body(await bob.json('GET', `/cloudapi/1.0.0/edgeGateways/${gwId}`)).minorErrorCode).toBe(
      'ACCESS_TO_RESOURCE_IS_FORBIDDEN',
    );
  });

  it('serves a control-plane endpoint whose health follows the VMs behind it', async () => {
    const net = body(await alice.json('GET', '/cloudapi/1.0.0/orgVdcNetworks?filter=name==net-a')).values[0];
    const gatewayRef = net.connection.routerRef;
    const segs = body(
      await alice.json(
        'GET',
        `/cloudapi/1.0.0/loadBalancer/serviceEngineGroups/assignments?filter=gatewayRef.id==${gatewayRef.id}`,
      ),
    );
    expect(segs.values).toHaveLength(1);
    const seg = segs.values[0];
    expect(seg).toMatchObject({ maxVirtualServices: 10, numDeployedVirtualServices: 0 });

    const pool = {
      name: 'c1-tcp',
      enabled: true,
      defaultPort: 6443,
      members: [],
      gatewayRef,
      gracefulTimeoutPeriod: 0,
      algorithm: 'ROUND_ROBIN',
      healthMonitors: [{ type: 'TCP' }],
    };
    expect(await done(await alice.json('POST', '/cloudapi/1.0.0/loadBalancer/pools', pool))).toBe('success');
    const poolSummary = body(
      await alice.json(
        'GET',
        `/cloudapi/1.0.0/edgeGateways/${gatewayRef.id}/loadBalancer/poolSummaries?filter=name==c1-tcp`,
      ),
    ).values[0];
    const poolRef = { name: poolSummary.name, id: poolSummary.id };
    const vs = {
      name: 'c1-tcp',
      enabled: true,
      virtualIpAddress: '203.0.113.11',
      loadBalancerPoolRef: poolRef,
      gatewayRef,
      serviceEngineGroupRef: seg.serviceEngineGroupRef,
      servicePorts: [{ portStart: 6443, tcpUdpProfile: { type: 'TCP_PROXY' }, sslEnabled: false }],
      applicationProfile: { systemDefined: true, name: 'System-L4-Application', type: 'L4' },
    };
    expect(await done(await alice.json('POST', '/cloudapi/1.0.0/loadBalancer/virtualServices', vs))).toBe(
      'success',
    );
    const summaries = () =>
      alice
        .json(
          'GET',
          `/cloudapi/1.0.0/edgeGateways/${gatewayRef.id}/loadBalancer/virtualServiceSummaries?filter=name==c1-tcp`,
        )
        .then((r) => body(r).values[0]);
    expect((await summaries()).healthStatus).toBe('DOWN');
    const used = body(
      await alice.json('GET', `/cloudapi/1.0.0/edgeGateways/${gatewayRef.id}/usedIpAddresses`),
    );
    expect(used.values).toContainEqual(
      expect.objectContaining({ ipAddress: '203.0.113.11', category: 'LOAD_BALANCER' }),
    );

    const l = await lookups(alice);
    const vappPath = await composeVApp(sim, alice, l, 'lb-cluster');
    const vms = await addVms(sim, alice, l, vappPath, [{ name: 'cp-0' }]);
    const ip = await boot(sim, alice, vms['cp-0']!);
    const allocated = body(
      await alice.json('GET', `/cloudapi/1.0.0/orgVdcNetworks/${net.id}/allocatedIpAddresses`),
    );
    expect(allocated.values).toEqual([
      expect.objectContaining({ ipAddress: '10.10.0.1', allocationType: 'EDGE' }),
      expect.objectContaining({
        ipAddress: ip,
        allocationType: 'VM_ALLOCATED',
        entityName: 'cp-0',
        vAppName: 'lb-cluster',
        deployed: true,
      }),
    ]);
    const current = body(await alice.json('GET', `/cloudapi/1.0.0/loadBalancer/pools/${poolRef.id}`));
    expect(
      await done(
        await alice.json('PUT', `/cloudapi/1.0.0/loadBalancer/pools/${poolRef.id}`, {
          ...current,
          members: [{ ipAddress: ip, port: 6443, enabled: true }],
        }),
      ),
    ).toBe('success');
    const withMember = body(await alice.json('GET', `/cloudapi/1.0.0/loadBalancer/pools/${poolRef.id}`));
    expect(withMember).toMatchObject({ memberCount: 1, upMemberCount: 1, healthStatus: 'UP' });
    expect(withMember.members[0]).toMatchObject({ ipAddress: ip, port: 6443, healthStatus: 'UP' });
    expect((await summaries()).healthStatus).toBe('UP');

    const members = body(await alice.json('GET', `/cloudapi/1.0.0/loadBalancer/pools/${poolRef.id}/members`));
    expect(members).toMatchObject({ resultTotal: 1, values: [{ ipAddress: ip, healthStatus: 'UP' }] });

    // Disabling the virtual service (a PUT of what GET returned) shows as DISABLED.
    const vsNow = body(
      await alice.json('GET', `/cloudapi/1.0.0/loadBalancer/virtualServices/${(await summaries()).id}`),
    );
    expect(vsNow).toMatchObject({
      virtualIpAddress: '203.0.113.11',
      loadBalancerPoolRef: { id: poolRef.id },
      healthStatus: 'UP',
    });
    const { serviceEngineGroupRef: _s, ...rest } = vsNow;
    expect(
      await done(
        await alice.json('PUT', `/cloudapi/1.0.0/loadBalancer/virtualServices/${vsNow.id}`, {
          ...rest,
          serviceEngineGroupRef: seg.serviceEngineGroupRef,
          enabled: false,
        }),
      ),
    ).toBe('success');
    expect((await summaries()).healthStatus).toBe('DISABLED');
    expect(
      await done(
        await alice.json('PUT', `/cloudapi/1.0.0/loadBalancer/virtualServices/${vsNow.id}`, {
          ...rest,
          serviceEngineGroupRef: seg.serviceEngineGroupRef,
          enabled: true,
        }),
      ),
    ).toBe('success');

    sim.inspect.setServing('cp-0', false);
    expect((await summaries()).healthStatus).toBe('DOWN');

    // Deleting a pool in use is refused; the virtual service goes first.
    expect((await alice.json('DELETE', `/cloudapi/1.0.0/loadBalancer/pools/${poolRef.id}`)).status).toBe(400);
    const vsId = (await summaries()).id;
    expect(
      await done(await alice.json('DELETE', `/cloudapi/1.0.0/loadBalancer/virtualServices/${vsId}`)),
    ).toBe('success');
    expect(await done(await alice.json('DELETE', `/cloudapi/1.0.0/loadBalancer/pools/${poolRef.id}`))).toBe(
      'success',
    );
    const after = body(
      await alice.json('GET', `/cloudapi/1.0.0/edgeGateways/${gatewayRef.id}/usedIpAddresses`),
    );
    expect(after.values.map((u: { ipAddress: string }) => u.ipAddress)).toEqual(['203.0.113.10']);
  });

  it('refuses bad load balancer bodies with VCD 400s', async () => {
    const net = body(await alice.json('GET', '/cloudapi/1.0.0/orgVdcNetworks?filter=name==net-a')).values[0];
    const gatewayRef = net.connection.routerRef;
    const cases: [unknown, RegExp][] = [
      [{ name: 'p', gatewayRef, bogus: 1 }, /Unrecognized field "bogus"/],
      [{ name: 'p', gatewayRef, defaultPort: -1 }, /defaultPort: must be between 1 and 65535/],
      [{ name: 'p', gatewayRef, algorithm: 'FASTEST' }, /algorithm: must be one of/],
      [{ gatewayRef }, /name: is required/],
      ['{not json', /not valid JSON/],
    ];
    for (const [b, msg] of cases) {
      const res = await alice.json('POST', '/cloudapi/1.0.0/loadBalancer/pools', b);
      expect(res.status, res.text).toBe(400);
      expect(body(res)).toMatchObject({ minorErrorCode: 'BAD_REQUEST' });
      expect(body(res).message).toMatch(msg);
    }
    expect(sim.inspect.errors()).toEqual([]);
  });
});
