/**
 * IP Spaces over HTTPS: an org's IP Spaces, floating IP reservation as a task whose result holds
 * the addresses, a load balancer VIP on a gateway using IP Spaces (only a reserved floating IP, which
 * it then marks used), release, quota, and the pure reservation rule under properties.
 */
import type { ManualClock } from '@capstan/runtime/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { type IpAllocation, pickFloatingIps } from '../src/model/ip-space.js';
import { intToIp, ipToInt } from '../src/model/ippool.js';
import { startVirtual, Tenant } from './client.js';

const body = (res: { text: string }) => JSON.parse(res.text);
const IPS = '/cloudapi/1.0.0/ipSpaces';

describe('IP Spaces', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  let bob: Tenant;
  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
    bob = await Tenant.login(sim, 'bob', 'tenant-b');
  });
  afterAll(() => sim.stop());

  /** Follows a 202 to its end; the task's XML. */
  async function finished(res: { status: number; headers: Record<string, unknown>; text: string }) {
    expect(res.status, res.text).toBe(202);
    sim.clock.advance(5000);
    return (await alice.xml('GET', new URL(String(res.headers.location)).pathname)).text;
  }

  async function reserve(spaceId: string, extra: object = {}): Promise<Array<{ id: string; value: string }>> {
    const task = await finished(
      await alice.json('POST', `${IPS}/${spaceId}/allocate`, { type: 'FLOATING_IP', quantity: 1, ...extra }),
    );
    expect(task).toContain('status="success"');
    const content = /<ResultContent[^>]*xsi:type="xs:string"[^>]*>([^<]*)<\/ResultContent>/.exec(task)?.[1];
    expect(content, task).toBeDefined();
    return JSON.parse(content!.replace(/&quot;/g, '"'));
  }

  it("lists the org's IP Spaces and hides them from other orgs", async () => {
    const list = body(await alice.json('GET', `${IPS}/summaries?filter=name==public-ips`));
    expect(list.resultTotal).toBe(1);
    const space = list.values[0];
    expect(space).toMatchObject({
      name: 'public-ips',
      type: 'PUBLIC',
      ipSpaceInternalScope: ['198.51.100.0/24'],
      ipSpaceRanges: {
        defaultFloatingIpQuota: 5,
        ipRanges: [{ startIpAddress: '198.51.100.10', endIpAddress: '198.51.100.20' }],
      },
    });
    expect(space.id).toMatch(/^urn:vcloud:ipSpace:[0-9a-f-]{36}$/);
    expect(body(await alice.json('GET', `${IPS}/${space.id}`)).name).toBe('public-ips');
    expect(body(await bob.json('GET', IPS)).resultTotal).toBe(0);
    expect((await bob.json('GET', `${IPS}/${space.id}`)).status).toBe(403);
    const gws = body(await alice.json('GET', '/cloudapi/1.0.0/edgeGateways'));
    const flags = Object.fromEntries(
      gws.values.map((g: { name: string; edgeGatewayUplinks: Array<{ usingIpSpace: boolean }> }) => [
        g.name,
        g.edgeGatewayUplinks[0]!.usingIpSpace,
      ]),
    );
    expect(flags).toEqual({ 'edge-a': false, 'edge-a-ips': true });
  });

  it('puts a VIP on an IP-Space gateway only from a reserved floating IP, marks it used, releases it', async () => {
    const space = body(await alice.json('GET', `${IPS}/summaries`)).values[0];
    const gw = body(await alice.json('GET', '/cloudapi/1.0.0/edgeGateways?filter=name==edge-a-ips'))
      .values[0];
    const [ip] = await reserve(space.id);
    expect(ip!.value).toBe('198.51.100.10');
    expect(ip!.id).toMatch(/^urn:vcloud:ipSpaceIpAllocation:/);
    const byValue = body(
      await alice.json(
        'GET',
        `${IPS}/${space.id}/allocations?filter=${encodeURIComponent(`type==FLOATING_IP;value==${ip!.value}`)}`,
      ),
    );
    expect(byValue.values).toEqual([
      expect.objectContaining({ id: ip!.id, usageState: 'UNUSED', value: ip!.value }),
    ]);
    const suggestions = body(
      await alice.json('GET', `${IPS}/floatingIpSuggestions?filter=gatewayId==${gw.id}`),
    );
    expect(suggestions.values).toEqual([
      { ipSpaceRef: { name: 'public-ips', id: space.id }, unusedValues: [ip!.value] },
    ]);

    const gatewayRef = { name: gw.name, id: gw.id };
    expect(
      await finished(
        await alice.json('POST', '/cloudapi/1.0.0/loadBalancer/pools', { name: 'ips-pool', gatewayRef }),
      ),
    ).toContain('status="success"');
    const pool = body(
      await alice.json('GET', `/cloudapi/1.0.0/edgeGateways/${gw.id}/loadBalancer/poolSummaries`),
    ).values[0];
    const seg = body(
      await alice.json(
        'GET',
        `/cloudapi/1.0.0/loadBalancer/serviceEngineGroups/assignments?filter=gatewayRef.id==${gw.id}`,
      ),
    ).values[0];
    const vs = (vip: string) => ({
      name: 'ips-vs',
      virtualIpAddress: vip,
      loadBalancerPoolRef: { id: pool.id },
      gatewayRef,
      serviceEngineGroupRef: seg.serviceEngineGroupRef,
      servicePorts: [{ portStart: 6443 }],
      applicationProfile: { type: 'L4' },
    });
    const unreserved = await alice.json(
      'POST',
      '/cloudapi/1.0.0/loadBalancer/virtualServices',
      vs('198.51.100.19'),
    );
    expect(unreserved.status).toBe(400);
    expect(body(unreserved).message).toContain('not a floating IP allocated to the org');
    expect(
      await finished(await alice.json('POST', '/cloudapi/1.0.0/loadBalancer/virtualServices', vs(ip!.value))),
    ).toContain('status="success"');
    const allocationPath = `${IPS}/${space.id}/allocations/${ip!.id}`;
    expect(body(await alice.json('GET', allocationPath))).toMatchObject({
      usageState: 'USED',
      usedByRef: { name: 'ips-vs' },
    });
    const inUse = await alice.json('DELETE', allocationPath);
    expect(inUse.status).toBe(400);
    expect(body(inUse).message).toContain('in use by ips-vs');

    const vsId = body(
      await alice.json('GET', `/cloudapi/1.0.0/edgeGateways/${gw.id}/loadBalancer/virtualServiceSummaries`),
    ).values[0].id;
    expect(
      await finished(await alice.json('DELETE', `/cloudapi/1.0.0/loadBalancer/virtualServices/${vsId}`)),
    ).toContain('status="success"');
    expect(body(await alice.json('GET', allocationPath)).usageState).toBe('UNUSED');
    expect((await bob.json('DELETE', allocationPath)).status).toBe(403);
    expect((await alice.json('DELETE', allocationPath)).status).toBe(204);
    expect((await alice.json('GET', allocationPath)).status).toBe(403);
  });

  it('refuses reservations beyond the quota or for an address taken, with the reason', async () => {
    const space = body(await alice.json('GET', `${IPS}/summaries`)).values[0];
    const over = await alice.json('POST', `${IPS}/${space.id}/allocate`, {
      type: 'FLOATING_IP',
      quantity: 6,
    });
    expect(over.status).toBe(400);
    expect(body(over).message).toContain('quota of IP Space "public-ips" (5)');
    const [one] = await reserve(space.id, { quantity: undefined, value: '198.51.100.15' });
    expect(one!.value).toBe('198.51.100.15');
    const again = await alice.json('POST', `${IPS}/${space.id}/allocate`, {
      type: 'FLOATING_IP',
      value: '198.51.100.15',
    });
    expect(body(again).message).toContain('already allocated');
    const prefix = await alice.json('POST', `${IPS}/${space.id}/allocate`, {
      type: 'IP_PREFIX',
      quantity: 1,
      prefixLength: 30,
    });
    expect(prefix.status).toBe(400);
  });
});

describe('pickFloatingIps', () => {
  const space = (quota: number, held: string[], size: number) => ({
    ranges: [{ startAddress: '192.0.2.1', endAddress: intToIp(ipToInt('192.0.2.1')! + size - 1) }],
    floatingIpQuota: quota,
    allocations: new Map<string, IpAllocation>(
      held.map((value, i) => [
        String(i),
        {
          id: String(i),
          orgId: i % 2 ? 'other' : 'org',
          type: 'FLOATING_IP',
          value,
          description: '',
          usageState: 'UNUSED',
          allocationDate: 0,
        },
      ]),
    ),
  });

  it('gives distinct free addresses in range, lowest first, within the quota, or says why not', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: -1, max: 8 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 11 }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 6 }),
        (size, quota, heldIdx, quantity) => {
          const held = heldIdx.filter((i) => i < size).map((i) => intToIp(ipToInt('192.0.2.1')! + i));
          const s = space(quota, held, size);
          const mine = [...s.allocations.values()].filter((a) => a.orgId === 'org').length;
          const got = pickFloatingIps(s, 'org', { quantity });
          const free = Array.from({ length: size }, (_, i) => intToIp(ipToInt('192.0.2.1')! + i)).filter(
            (ip) => !held.includes(ip),
          );
          const want =
            quota >= 0 && mine + quantity > quota
              ? { refused: { kind: 'quota', quota, held: mine } }
              : free.length < quantity
                ? { refused: { kind: 'exhausted' } }
                : { values: free.slice(0, quantity) };
          expect(got).toEqual(want);
        },
      ),
    );
  });
});
