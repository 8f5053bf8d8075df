/**
 * The request and answer shapes VMware's Go SDK relies on (issue 40's items, each on its own; the
 * SDK itself drives them in sdk-conformance.test.ts): the SDK's NetworkConfigSection with
 * BackwardCompatibilityMode, PUT virtualHardwareSection for ExtraConfig, VM naming from the
 * Source's name, logout paths, the admin org view, and metadata's Domain.
 */
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { parseXml, pathOf, startVirtual, Tenant } from './client.js';
import { addVms, composeVApp, type Lookups, lookups, MT, run } from './flows.js';

const NS = `xmlns="http://www.vmware.com/vcloud/v1.5" xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1"`;

describe('shapes the Go SDK sends and reads', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  let l: Lookups;
  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
    l = await lookups(alice);
  });
  afterAll(() => sim.stop());

  it('adds an org VDC network to a vApp from a Configuration that starts with BackwardCompatibilityMode', async () => {
    const vdc = pathOf(l.vdcHref);
    const res = await alice.xml(
      'POST',
      `${vdc}/action/composeVApp`,
      `<ComposeVAppParams ${NS} name="bcm" deploy="false" powerOn="false"/>`,
      MT('composeVAppParams'),
    );
    expect(res.status, res.text).toBe(201);
    const vapp = pathOf(parseXml(res.text).VApp['@href']);
    sim.clock.advance(5_000);
    // As the SDK's AddOrgNetwork writes it (updateNetworkConfigurations), element order included.
    const section = `<NetworkConfigSection ${NS} type="${MT('networkConfigSection')}"><ovf:Info>Configuration parameters for logical networks</ovf:Info><NetworkConfig networkName="net-a"><Configuration><BackwardCompatibilityMode>false</BackwardCompatibilityMode><ParentNetwork href="${l.netHref}"></ParentNetwork><FenceMode>bridged</FenceMode><RetainNetInfoAcrossDeployments>false</RetainNetInfoAcrossDeployments></Configuration><IsDeployed>false</IsDeployed></NetworkConfig></NetworkConfigSection>`;
    expect(
      await run(sim, alice, 'PUT', `${vapp}/networkConfigSection/`, section, MT('networkConfigSection')),
    ).toBe('success');
    const got = parseXml((await alice.xml('GET', `${vapp}/networkConfigSection/`)).text).NetworkConfigSection;
    expect(got.NetworkConfig.map((n: Record<string, string>) => n['@networkName'])).toEqual(['net-a']);
  });

  it('writes ExtraConfig through PUT virtualHardwareSection, an empty value removing a key', async () => {
    const vapp = await composeVApp(sim, alice, l, 'vhs');
    const vm = (await addVms(sim, alice, l, vapp, [{ name: 'vhs-0' }]))['vhs-0']!;
    const section = (await alice.xml('GET', `${vm}/virtualHardwareSection/`)).text;
    // The SDK re-sends the items it read, with only the keys to change.
    const items = [...section.matchAll(/<ovf:Item>.*?<\/ovf:Item>/gs)].map((m) => m[0]).join('');
    const put = (keys: string) =>
      run(
        sim,
        alice,
        'PUT',
        `${vm}/virtualHardwareSection/`,
        `<ovf:VirtualHardwareSection xmlns="http://www.vmware.com/vcloud/v1.5" xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1" xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData" xmlns:vssd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_VirtualSystemSettingData" xmlns:ns2="http://www.vmware.com/vcloud/v1.5" xmlns:ns3="http://www.vmware.com/vcloud/v1.5" xmlns:ns4="http://www.vmware.com/vcloud/v1.5" xmlns:ns5="http://www.vmware.com/vcloud/v1.5" xmlns:vmw="http://www.vmware.com/schema/ovf"><ovf:Info>Virtual hardware requirements</ovf:Info>${items}${keys}</ovf:VirtualHardwareSection>`,
        MT('virtualHardwareSection'),
      );
    expect(
      await put(
        '<vmw:ExtraConfig vmw:key="guestinfo.a" vmw:value="1" ovf:required="false"></vmw:ExtraConfig><vmw:ExtraConfig vmw:key="guestinfo.b" vmw:value="2" ovf:required="false"></vmw:ExtraConfig>',
      ),
    ).toBe('success');
    expect(await put('<vmw:ExtraConfig vmw:key="guestinfo.a" vmw:value="" ovf:required="false"/>')).toBe(
      'success',
    );
    const hw = parseXml(
      (await alice.xml('GET', `${vm}/virtualHardwareSection/`)).text,
    ).VirtualHardwareSection;
    expect(hw.ExtraConfig.map((e: Record<string, string>) => [e['@key'], e['@value']])).toEqual([
      ['guestinfo.b', '2'],
    ]);
  });

  it("names a recomposed VM after the Source's name when there are no VmGeneralParams", async () => {
    const vapp = await composeVApp(sim, alice, l, 'naming');
    const body = `<RecomposeVAppParams ${NS} name="naming"><SourcedItem><Source href="${l.templateVmHref}" name="from-source"/><InstantiationParams><NetworkConnectionSection><ovf:Info>n</ovf:Info><PrimaryNetworkConnectionIndex>0</PrimaryNetworkConnectionIndex><NetworkConnection network="net-a"><NetworkConnectionIndex>0</NetworkConnectionIndex><IsConnected>true</IsConnected><IpAddressAllocationMode>POOL</IpAddressAllocationMode></NetworkConnection></NetworkConnectionSection></InstantiationParams></SourcedItem><AllEULAsAccepted>true</AllEULAsAccepted></RecomposeVAppParams>`;
    expect(
      await run(sim, alice, 'POST', `${vapp}/action/recomposeVApp`, body, MT('recomposeVAppParams')),
    ).toBe('success');
    const vms = parseXml((await alice.xml('GET', vapp)).text).VApp.Children.Vm;
    expect(vms.map((v: Record<string, string>) => v['@name'])).toEqual(['from-source']);
  });

  it('shows no Domain for a GENERAL, READWRITE entry and refuses the SYSTEM domain to a tenant', async () => {
    const vapp = await composeVApp(sim, alice, l, 'meta');
    const value = (domain: string) =>
      `<MetadataValue xmlns="http://www.vmware.com/vcloud/v1.5" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">${domain}<TypedValue xsi:type="MetadataStringValue"><Value>v</Value></TypedValue></MetadataValue>`;
    const general = value('<Domain visibility="READWRITE">GENERAL</Domain>');
    expect(await run(sim, alice, 'PUT', `${vapp}/metadata/plain`, general, MT('metadata.value'))).toBe(
      'success',
    );
    expect(
      await run(
        sim,
        alice,
        'PUT',
        `${vapp}/metadata/GENERAL/ro`,
        value('<Domain visibility="READONLY">GENERAL</Domain>'),
        MT('metadata.value'),
      ),
    ).toBe('success');
    const entries = parseXml((await alice.xml('GET', `${vapp}/metadata`)).text).Metadata.MetadataEntry;
    const byKey = Object.fromEntries(entries.map((e: Record<string, unknown>) => [e.Key, e.Domain]));
    expect(byKey.plain).toBeUndefined();
    expect(byKey.ro).toMatchObject({ '#text': 'GENERAL', '@visibility': 'READONLY' });
    const system = value('<Domain visibility="READONLY">SYSTEM</Domain>');
    for (const path of [`${vapp}/metadata/SYSTEM/owner`, `${vapp}/metadata/owner`]) {
      const res = await alice.xml('PUT', path, system, MT('metadata.value'));
      expect(res.status, `${path}: ${res.text}`).toBe(403);
      expect(parseXml(res.text).Error['@minorErrorCode']).toBe('ACCESS_TO_RESOURCE_IS_FORBIDDEN');
    }
  });
});

describe('logout paths and the admin view', () => {
  let sim: VcdSim<ManualClock>;
  beforeAll(async () => {
    sim = await startVirtual();
  });
  afterAll(() => sim.stop());

  it('ends a session at sessions/current, at sessions/{id} and at /api/session; the token is then 401', async () => {
    for (const logout of ['current', 'id', 'legacy'] as const) {
      const t = await Tenant.login(sim);
      const session = JSON.parse((await t.json('GET', '/cloudapi/1.0.0/sessions/current')).text) as {
        id: string;
      };
      const res =
        logout === 'legacy'
          ? await t.xml('DELETE', '/api/session')
          : await t.json('DELETE', `/cloudapi/1.0.0/sessions/${logout === 'id' ? session.id : 'current'}`);
      expect(res.status, `${logout}: ${res.text}`).toBe(204);
      expect((await t.xml('GET', '/api/org')).status).toBe(401);
    }
    const a = await Tenant.login(sim);
    const other = await Tenant.login(sim);
    const otherId = (
      JSON.parse((await other.json('GET', '/cloudapi/1.0.0/sessions/current')).text) as { id: string }
    ).id;
    expect((await a.json('DELETE', `/cloudapi/1.0.0/sessions/${otherId}`)).status).toBe(403);
    expect((await other.xml('GET', '/api/org')).status).toBe(200);
  });

  it("answers GET /api/admin and the caller's own admin org 200, any other org 403, never 404", async () => {
    const alice = await Tenant.login(sim);
    const admin = await alice.xml('GET', '/api/admin');
    expect(admin.status, admin.text).toBe(200);
    const refs = parseXml(admin.text).VCloud.OrganizationReferences.OrganizationReference;
    expect(refs.map((r: Record<string, string>) => r['@name'])).toEqual(['tenant-a']);
    const own = await alice.xml('GET', pathOf(refs[0]['@href']));
    expect(own.status, own.text).toBe(200);
    expect(parseXml(own.text).AdminOrg['@name']).toBe('tenant-a');
    const b = sim.inspect.world.orgByName('tenant-b')!;
    for (const id of [b.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid'])
      expect((await alice.xml('GET', `/api/admin/org/${id}`)).status).toBe(403);
  });
});
