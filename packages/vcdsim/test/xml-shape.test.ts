/** XML answers: real namespaces, documented element order, section and metadata endpoints, query records. */
import type { ManualClock } from '@capstan/runtime/testing';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { parseXml, startVirtual, Tenant } from './client.js';
import { NS, reconfigureExtraConfig } from './fixtures.js';
import { addVms, boot, composeVApp, type Lookups, lookups, MT, run } from './flows.js';

type Ordered = Record<string, unknown>[];
const ordered = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '' });
const nameOf = (n: Record<string, unknown>) => Object.keys(n).find((k) => k !== ':@' && k !== '#text')!;
const attrsOf = (n: Record<string, unknown>) => (n[':@'] ?? {}) as Record<string, string>;
const kids = (n: Record<string, unknown>): Ordered => (n[nameOf(n)] as Ordered).filter((c) => nameOf(c));
const root = (text: string) =>
  (ordered.parse(text) as Ordered).find((n) => nameOf(n) && !nameOf(n).startsWith('?'))!;
const find = (n: Record<string, unknown>, name: string) => kids(n).filter((c) => nameOf(c) === name);
/** Element names in order, repeated names collapsed. */
const sequence = (n: Record<string, unknown>) =>
  kids(n)
    .map(nameOf)
    .filter((x, i, a) => a[i - 1] !== x);
/** True when `seq` appears in `order`'s order (each name at most once, names from `order` only). */
const follows = (seq: string[], order: string[]) => {
  const idx = seq.map((s) => order.indexOf(s));
  return idx.every((v, i) => v >= 0 && (i === 0 || v > idx[i - 1]!));
};

const VM_ORDER = [
  'Link',
  'Description',
  'Tasks',
  'VAppParent',
  'ovf:VirtualHardwareSection',
  'ovf:OperatingSystemSection',
  'NetworkConnectionSection',
  'GuestCustomizationSection',
  'ovf:ProductSection',
  'RuntimeInfoSection',
  'SnapshotSection',
  'VmSpecSection',
  'DateCreated',
  'VAppScopedLocalId',
  'ovfenv:Environment',
  'VmCapabilities',
  'StorageProfile',
  'ComputePolicy',
];
const NIC_ORDER = [
  'NetworkConnectionIndex',
  'IpAddress',
  'IpType',
  'SecondaryIpAddress',
  'SecondaryIpType',
  'ExternalIpAddress',
  'IsConnected',
  'MACAddress',
  'IpAddressAllocationMode',
  'SecondaryIpAddressAllocationMode',
  'NetworkAdapterType',
];
const GC_ORDER = [
  'ovf:Info',
  'Enabled',
  'ChangeSid',
  'VirtualMachineId',
  'JoinDomainEnabled',
  'UseOrgSettings',
  'DomainName',
  'DomainUserName',
  'DomainUserPassword',
  'MachineObjectOU',
  'AdminPasswordEnabled',
  'AdminPasswordAuto',
  'AdminPassword',
  'AdminAutoLogonEnabled',
  'AdminAutoLogonCount',
  'ResetPasswordRequired',
  'CustomizationScript',
  'ComputerName',
  'Link',
];

describe('XML answers', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  let l: Lookups;
  let vappPath: string;
  let vmPath: string;
  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
    l = await lookups(alice);
    vappPath = await composeVApp(sim, alice, l, 'shapes');
    const policies = JSON.parse(
      (
        await alice.json(
          'GET',
          '/cloudapi/1.0.0/vdcComputePolicies?filter=name==large,name==zone-a&sortAsc=name',
        )
      ).text,
    ).values;
    vmPath = (
      await addVms(sim, alice, l, vappPath, [
        { name: 'shape-0', sizingPolicyUrn: policies[0].id, placementPolicyUrn: policies[1].id },
      ])
    )['shape-0']!;
    expect(
      await run(
        sim,
        alice,
        'POST',
        `${vmPath}/action/reconfigureVm`,
        reconfigureExtraConfig('shape-0', { 'guestinfo.metadata': 'e30=', 'disk.enableUUID': '1' }),
        MT('vm'),
      ),
    ).toBe('success');
    await boot(sim, alice, vmPath);
  });
  afterAll(() => sim.stop());

  it('puts a Vm in the vcloud namespace with ovf, rasd, vssd and vmw bound', async () => {
    const res = await alice.xml('GET', vmPath);
    expect(res.headers['content-type']).toBe(`${MT('vm')};version=37.2`);
    const vm = root(res.text);
    expect(nameOf(vm)).toBe('Vm');
    expect(attrsOf(vm)).toMatchObject({
      xmlns: 'http://www.vmware.com/vcloud/v1.5',
      'xmlns:ovf': 'http://schemas.dmtf.org/ovf/envelope/1',
      'xmlns:rasd': 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData',
      'xmlns:vssd': 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_VirtualSystemSettingData',
      'xmlns:vmw': 'http://www.vmware.com/schema/ovf',
      status: '4',
      type: MT('vm'),
    });
    expect(attrsOf(vm).id).toMatch(/^urn:vcloud:vm:[0-9a-f-]{36}$/);
    expect(follows(sequence(vm), VM_ORDER), sequence(vm).join(' ')).toBe(true);
  });

  it('writes NetworkConnection children in the schema order', async () => {
    const vm = root((await alice.xml('GET', vmPath)).text);
    const ncs = find(vm, 'NetworkConnectionSection')[0]!;
    expect(sequence(ncs)).toEqual(['ovf:Info', 'PrimaryNetworkConnectionIndex', 'NetworkConnection', 'Link']);
    const nic = find(ncs, 'NetworkConnection')[0]!;
    const names = sequence(nic);
    expect(names).toEqual([
      'NetworkConnectionIndex',
      'IpAddress',
      'IpType',
      'IsConnected',
      'MACAddress',
      'IpAddressAllocationMode',
      'SecondaryIpAddressAllocationMode',
      'NetworkAdapterType',
    ]);
    expect(follows(names, NIC_ORDER)).toBe(true);
    expect(attrsOf(nic)).toMatchObject({ network: 'net-a' });
  });

  it('keeps ExtraConfig in the vmw namespace after the hardware items', async () => {
    const vm = root((await alice.xml('GET', vmPath)).text);
    const hw = find(vm, 'ovf:VirtualHardwareSection')[0]!;
    const seq = sequence(hw);
    expect(seq).toEqual(['ovf:Info', 'ovf:System', 'ovf:Item', 'vmw:ExtraConfig', 'Link']);
    const extra = find(hw, 'vmw:ExtraConfig').map(attrsOf);
    expect(extra).toEqual([
      { 'ovf:required': 'true', 'vmw:key': 'guestinfo.metadata', 'vmw:value': 'e30=' },
      { 'ovf:required': 'true', 'vmw:key': 'disk.enableUUID', 'vmw:value': '1' },
    ]);
    for (const item of find(hw, 'ovf:Item')) {
      const rasd = sequence(item).filter((n) => n.startsWith('rasd:'));
      expect(rasd).toEqual([...rasd].sort());
    }
    const cpu = find(hw, 'ovf:Item').find((i) =>
      JSON.stringify(i).includes('"rasd:ResourceType":[{"#text":3}]'),
    );
    expect(JSON.stringify(cpu)).toContain('"rasd:VirtualQuantity":[{"#text":4}]');
  });

  it('applies the sizing and placement policies and reports them', async () => {
    const vm = parseXml((await alice.xml('GET', vmPath)).text).Vm;
    expect(vm.VmSpecSection).toMatchObject({
      NumCpus: '4',
      NumCoresPerSocket: '2',
      MemoryResourceMb: { Configured: '16384' },
    });
    expect(vm.ComputePolicy.VmSizingPolicy['@name']).toBe('large');
    expect(vm.ComputePolicy.VmPlacementPolicy['@name']).toBe('zone-a');
    expect(vm.RuntimeInfoSection.VMWareTools['@version']).toBeDefined();
  });

  it('serves the guest customization section in schema order and lets it change', async () => {
    const path = `${vmPath}/guestCustomizationSection/`;
    const gc = root((await alice.xml('GET', path)).text);
    expect(follows(sequence(gc), GC_ORDER), sequence(gc).join(' ')).toBe(true);
    const body = `<GuestCustomizationSection ${NS}><ovf:Info>x</ovf:Info><Enabled>false</Enabled><ComputerName>renamed</ComputerName></GuestCustomizationSection>`;
    expect(await run(sim, alice, 'PUT', path, body, MT('guestCustomizationSection'))).toBe('success');
    expect(parseXml((await alice.xml('GET', path)).text).GuestCustomizationSection).toMatchObject({
      Enabled: 'false',
      ComputerName: 'renamed',
    });
  });

  it('round-trips product sections (the OVF environment)', async () => {
    const path = `${vmPath}/productSections/`;
    const body = `<ProductSectionList ${NS}><ovf:ProductSection><ovf:Info>props</ovf:Info><ovf:Property ovf:key="guestinfo.ignition.config.data" ovf:type="string" ovf:value="abc" ovf:userConfigurable="true"/></ovf:ProductSection></ProductSectionList>`;
    expect(await run(sim, alice, 'PUT', path, body, MT('productSections'))).toBe('success');
    const list = root((await alice.xml('GET', path)).text);
    const prop = find(find(list, 'ovf:ProductSection')[0]!, 'ovf:Property')[0]!;
    expect(attrsOf(prop)).toMatchObject({ 'ovf:key': 'guestinfo.ignition.config.data', 'ovf:value': 'abc' });
  });

  it('changes NICs through the network connection section only while powered off', async () => {
    const path = `${vmPath}/networkConnectionSection/`;
    const body = (mode: string) =>
      `<NetworkConnectionSection ${NS}><ovf:Info>x</ovf:Info><PrimaryNetworkConnectionIndex>0</PrimaryNetworkConnectionIndex><NetworkConnection network="net-a"><NetworkConnectionIndex>0</NetworkConnectionIndex><IsConnected>true</IsConnected><IpAddressAllocationMode>${mode}</IpAddressAllocationMode></NetworkConnection></NetworkConnectionSection>`;
    const live = await alice.xml('PUT', path, body('DHCP'), MT('networkConnectionSection'));
    expect(live.status).toBe(400);
    expect((await alice.xml('PUT', path, body('SOMETIMES'), MT('networkConnectionSection'))).status).toBe(
      400,
    );
    expect(await run(sim, alice, 'POST', `${vmPath}/power/action/powerOff`)).toBe('success');
    expect(await run(sim, alice, 'PUT', path, body('DHCP'), MT('networkConnectionSection'))).toBe('success');
    const nc = parseXml((await alice.xml('GET', path)).text).NetworkConnectionSection.NetworkConnection[0];
    expect(nc.IpAddressAllocationMode).toBe('DHCP');
  });

  it('takes back the Vm it served as a reconfigureVm body (as providers re-send the whole VM)', async () => {
    const served = (await alice.xml('GET', vmPath)).text;
    const withKey = served.replace(
      '<vmw:ExtraConfig ',
      '<vmw:ExtraConfig ovf:required="false" vmw:key="guestinfo.extra" vmw:value="1"/><vmw:ExtraConfig ',
    );
    expect(await run(sim, alice, 'POST', `${vmPath}/action/reconfigureVm`, withKey, MT('vm'))).toBe(
      'success',
    );
    const after = parseXml((await alice.xml('GET', vmPath)).text).Vm;
    const keys = after.VirtualHardwareSection.ExtraConfig.map((e: Record<string, string>) => e['@key']);
    expect(keys).toEqual(['guestinfo.metadata', 'disk.enableUUID', 'guestinfo.extra']);
    const before = parseXml(served).Vm;
    expect(after.NetworkConnectionSection).toEqual(before.NetworkConnectionSection);
    expect(after.VmSpecSection).toEqual(before.VmSpecSection);
    // An empty value removes the key again.
    const removal = `<Vm ${NS} name="shape-0"><ovf:VirtualHardwareSection><ovf:Info>hw</ovf:Info><vmw:ExtraConfig vmw:key="guestinfo.extra" vmw:value=""/></ovf:VirtualHardwareSection></Vm>`;
    expect(await run(sim, alice, 'POST', `${vmPath}/action/reconfigureVm`, removal, MT('vm'))).toBe(
      'success',
    );
    const last = parseXml((await alice.xml('GET', vmPath)).text).Vm;
    expect(last.VirtualHardwareSection.ExtraConfig.map((e: Record<string, string>) => e['@key'])).toEqual([
      'guestinfo.metadata',
      'disk.enableUUID',
    ]);
  });

  it('serves the virtual hardware section on its own, with its namespaces', async () => {
    const res = await alice.xml('GET', `${vmPath}/virtualHardwareSection/`);
    expect(res.headers['content-type']).toBe(`${MT('virtualHardwareSection')};version=37.2`);
    const hw = root(res.text);
    expect(nameOf(hw)).toBe('ovf:VirtualHardwareSection');
    expect(attrsOf(hw)).toMatchObject({
      'xmlns:vmw': 'http://www.vmware.com/schema/ovf',
      'xmlns:ovf': 'http://schemas.dmtf.org/ovf/envelope/1',
    });
    expect(find(hw, 'vmw:ExtraConfig')).toHaveLength(2);
  });

  it("changes a vApp's networks, refusing to drop one a VM uses", async () => {
    const path = `${vappPath}/networkConfigSection/`;
    const section = parseXml((await alice.xml('GET', path)).text).NetworkConfigSection;
    expect(section.NetworkConfig.map((n: Record<string, string>) => n['@networkName'])).toEqual(['net-a']);
    const config = (name: string) =>
      `<NetworkConfig networkName="${name}"><Configuration><ParentNetwork href="${l.netHref}"/><FenceMode>bridged</FenceMode></Configuration></NetworkConfig>`;
    const body = (...names: string[]) =>
      `<NetworkConfigSection ${NS}><ovf:Info>n</ovf:Info>${names.map(config).join('')}</NetworkConfigSection>`;
    expect(await run(sim, alice, 'PUT', path, body('net-a', 'net-a-2'), MT('networkConfigSection'))).toBe(
      'success',
    );
    const after = parseXml((await alice.xml('GET', path)).text).NetworkConfigSection;
    expect(after.NetworkConfig.map((n: Record<string, string>) => n['@networkName'])).toEqual([
      'net-a',
      'net-a-2',
    ]);
    const drop = await alice.xml('PUT', path, body('net-a-2'), MT('networkConfigSection'));
    expect(drop.status).toBe(400);
    expect(parseXml(drop.text).Error['@message']).toMatch(/used by a VM/);
    const adminPath = new URL(l.netHref).pathname.replace('/api/network/', '/api/admin/network/');
    expect(parseXml((await alice.xml('GET', adminPath)).text).OrgVdcNetwork['@name']).toBe('net-a');
  });

  it('reads, writes and deletes metadata as tasks', async () => {
    const mv = `<MetadataValue ${NS} xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><TypedValue xsi:type="MetadataStringValue"><Value>infra-123</Value></TypedValue></MetadataValue>`;
    expect(await run(sim, alice, 'PUT', `${vappPath}/metadata/CapvcdInfraId`, mv, MT('metadata.value'))).toBe(
      'success',
    );
    const one = await alice.xml('GET', `${vappPath}/metadata/CapvcdInfraId`);
    expect(one.headers['content-type']).toBe(`${MT('metadata.value')};version=37.2`);
    expect(parseXml(one.text).MetadataValue.TypedValue).toMatchObject({
      '@type': 'MetadataStringValue',
      Value: 'infra-123',
    });
    const all = parseXml((await alice.xml('GET', `${vappPath}/metadata`)).text).Metadata;
    expect(all.MetadataEntry.map((e: { Key: string }) => e.Key)).toEqual(['CapvcdInfraId']);
    expect(await run(sim, alice, 'DELETE', `${vappPath}/metadata/CapvcdInfraId`)).toBe('success');
    expect((await alice.xml('GET', `${vappPath}/metadata/CapvcdInfraId`)).status).toBe(403);
  });

  it('answers queries as QueryResultRecords with FIQL filters, paging links and formats', async () => {
    const res = await alice.xml('GET', '/api/query?type=vAppTemplate&format=records&pageSize=1&sortAsc=name');
    expect(res.headers['content-type']).toBe(`${MT('query.records')};version=37.2`);
    const q = root(res.text);
    expect(attrsOf(q)).toMatchObject({
      total: '2',
      page: '1',
      pageSize: '1',
      name: 'vAppTemplate',
      xmlns: 'http://www.vmware.com/vcloud/v1.5',
    });
    expect(find(q, 'Link').map((x) => attrsOf(x).rel)).toEqual(['nextPage', 'lastPage']);
    expect(attrsOf(find(q, 'VAppTemplateRecord')[0]!)).toMatchObject({
      name: 'flatcar-stable-kube-v1.35',
      catalogName: 'templates',
    });
    const or = parseXml(
      (
        await alice.xml(
          'GET',
          '/api/query?type=vAppTemplate&filter=(name==ubuntu*,name==flatcar*);catalogName==templates',
        )
      ).text,
    );
    expect(or.QueryResultRecords.VAppTemplateRecord).toHaveLength(2);
    const ids = parseXml(
      (await alice.xml('GET', '/api/query?type=vm&format=idrecords&filter=name==shape-0')).text,
    );
    expect(ids.QueryResultRecords.VMRecord[0]['@id']).toMatch(/^urn:vcloud:vm:/);
    const refs = parseXml((await alice.xml('GET', '/api/query?type=orgVdc&format=references')).text);
    expect(refs.QueryResultReferences.OrgVdcReference[0]['@name']).toBe('vdc-a');
    const tasks = parseXml(
      (await alice.xml('GET', '/api/query?type=task&filter=name==vdcRecomposeVapp;status==success')).text,
    );
    expect(tasks.QueryResultRecords.TaskRecord).toHaveLength(1);
  });

  it('serves Task documents with Owner, User, Organization and Progress', async () => {
    const t = sim.inspect.tasks().find((x) => x.operationName === 'vdcRecomposeVapp')!;
    const res = await alice.xml('GET', `/api/task/${t.id}`);
    expect(res.headers['content-type']).toBe(`${MT('task')};version=37.2`);
    const task = root(res.text);
    expect(attrsOf(task)).toMatchObject({
      status: 'success',
      operationName: 'vdcRecomposeVapp',
      serviceNamespace: 'com.vmware.vcloud',
    });
    expect(sequence(task)).toEqual(['Owner', 'User', 'Organization', 'Progress', 'Details']);
    expect(attrsOf(find(task, 'Owner')[0]!).type).toBe(MT('vApp'));
  });
});
