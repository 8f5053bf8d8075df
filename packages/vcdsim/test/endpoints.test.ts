/** The remaining legacy endpoints: entity GETs, compose with VMs, vApp-wide power and undeploy, task cancel. */
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { parseXml, pathOf, request, startVirtual, Tenant } from './client.js';
import { NS } from './fixtures.js';
import { addVms, boot, composeVApp, type Lookups, lookups, MT, run, settle } from './flows.js';

describe('legacy entities and vApp-wide operations', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  let l: Lookups;
  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
    l = await lookups(alice);
  });
  afterAll(() => sim.stop());

  it('walks org → VDC → catalog → item → template, and reads the network', async () => {
    const orgList = parseXml((await alice.xml('GET', '/api/org')).text).OrgList;
    const org = parseXml((await alice.xml('GET', pathOf(orgList.Org['@href']))).text).Org;
    expect(org['@name']).toBe('tenant-a');
    const rels = org.Link.map((x: Record<string, string>) => `${x['@type']}|${x['@name'] ?? ''}`);
    expect(rels).toEqual(expect.arrayContaining([`${MT('vdc')}|vdc-a`, `${MT('catalog')}|templates`]));
    const vdc = parseXml((await alice.xml('GET', pathOf(l.vdcHref))).text).Vdc;
    expect(vdc.AvailableNetworks.Network.map((n: Record<string, string>) => n['@name'])).toEqual([
      'net-a',
      'net-a-ips',
    ]);
    expect(vdc.VdcStorageProfiles.VdcStorageProfile.map((p: Record<string, string>) => p['@name'])).toEqual([
      'fast',
      'slow',
    ]);
    const catHref = org.Link.find((x: Record<string, string>) => x['@type'] === MT('catalog'))['@href'];
    const cat = parseXml((await alice.xml('GET', pathOf(catHref))).text).Catalog;
    const items = cat.CatalogItems.CatalogItem;
    expect(items.map((i: Record<string, string>) => i['@name'])).toEqual([
      'ubuntu-2404-kube-v1.35',
      'flatcar-stable-kube-v1.35',
    ]);
    const item = parseXml((await alice.xml('GET', pathOf(items[1]['@href']))).text).CatalogItem;
    expect(item.Entity['@type']).toBe(MT('vAppTemplate'));
    const tvm = parseXml(
      (
        await alice.xml(
          'GET',
          pathOf(
            parseXml((await alice.xml('GET', pathOf(item.Entity['@href']))).text).VAppTemplate.Children.Vm[0][
              '@href'
            ],
          ),
        )
      ).text,
    ).Vm;
    expect(tvm.VmSpecSection).toMatchObject({
      OsType: 'other5xLinux64Guest',
      NumCpus: '2',
      MemoryResourceMb: { Configured: '4096' },
    });
    const net = parseXml((await alice.xml('GET', pathOf(l.netHref))).text).OrgVdcNetwork;
    expect(net.Configuration.IpScopes.IpScope).toMatchObject({
      Gateway: '10.10.0.1',
      Netmask: '255.255.255.0',
      Dns1: '10.10.0.2',
      IpRanges: { IpRange: { StartAddress: '10.10.0.100', EndAddress: '10.10.0.250' } },
    });
    expect(net.Configuration.FenceMode).toBe('natRouted');
  });

  it('composes a vApp with a VM and powers it on in one call, then runs vApp-wide power and undeploy', async () => {
    const body = `<ComposeVAppParams ${NS} name="one-shot" powerOn="true">
      <InstantiationParams><NetworkConfigSection><ovf:Info>n</ovf:Info><NetworkConfig networkName="net-a"><Configuration><ParentNetwork href="${l.netHref}"/><FenceMode>bridged</FenceMode></Configuration></NetworkConfig></NetworkConfigSection></InstantiationParams>
      <SourcedItem><Source href="${l.templateVmHref}"/><VmGeneralParams><Name>solo</Name></VmGeneralParams>
        <InstantiationParams><NetworkConnectionSection><ovf:Info>n</ovf:Info><NetworkConnection network="net-a"><NetworkConnectionIndex>0</NetworkConnectionIndex><IpAddressAllocationMode>MANUAL</IpAddressAllocationMode><IpAddress>10.10.0.7</IpAddress></NetworkConnection></NetworkConnectionSection></InstantiationParams>
      </SourcedItem></ComposeVAppParams>`;
    const res = await alice.xml(
      'POST',
      `${pathOf(l.vdcHref)}/action/composeVApp`,
      body,
      MT('composeVAppParams'),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.headers.location).toBe(parseXml(res.text).VApp['@href']);
    const vappPath = pathOf(String(res.headers.location));
    expect((await settle(sim, alice, parseXml(res.text).VApp.Tasks.Task['@href'])).status).toBe('success');
    sim.clock.advance(1000);
    const vapp = parseXml((await alice.xml('GET', vappPath)).text).VApp;
    expect(vapp['@status']).toBe('4');
    expect(vapp.Children.Vm[0].NetworkConnectionSection.NetworkConnection[0].IpAddress).toBe('10.10.0.7');
    expect(vapp.NetworkConfigSection.NetworkConfig[0].Configuration.ParentNetwork['@name']).toBe('net-a');

    expect(await run(sim, alice, 'POST', `${vappPath}/power/action/powerOff`)).toBe('success');
    expect(parseXml((await alice.xml('GET', vappPath)).text).VApp['@status']).toBe('8');
    expect(await run(sim, alice, 'POST', `${vappPath}/power/action/powerOn`)).toBe('success');
    expect(await run(sim, alice, 'POST', `${vappPath}/action/undeploy`)).toBe('success');
    const undeployed = parseXml((await alice.xml('GET', vappPath)).text).VApp;
    expect([undeployed['@status'], undeployed['@deployed']]).toEqual(['8', 'false']);
    expect(sim.inspect.pool('net-a')!.allocated).toEqual({});
    expect(await run(sim, alice, 'DELETE', vappPath)).toBe('success');
    expect(sim.inspect.vm('solo')).toBeUndefined();
  });

  it('aborts a task on cancel and leaves the VM as it was', async () => {
    const res = await alice.xml(
      'POST',
      `${pathOf(l.vdcHref)}/action/composeVApp`,
      `<ComposeVAppParams ${NS} name="to-cancel"/>`,
      MT('composeVAppParams'),
    );
    const taskHref = parseXml(res.text).VApp.Tasks.Task['@href'];
    const cancel = await alice.xml('POST', `${pathOf(taskHref)}/action/cancel`);
    expect(cancel.status).toBe(204);
    const { status, task } = await settle(sim, alice, taskHref);
    expect(status).toBe('aborted');
    expect(task['@cancelRequested']).toBe('true');
    expect(
      parseXml((await alice.xml('GET', pathOf(String(res.headers.location)))).text).VApp['@status'],
    ).toBe('-1');
  });

  it('logs in through the legacy POST /api/sessions too', async () => {
    const res = await request(sim, 'POST', '/api/sessions', {
      headers: {
        Accept: 'application/*+xml;version=37.2',
        Authorization: `Basic ${Buffer.from('alice@tenant-a:alice-password').toString('base64')}`,
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(`${MT('session')};version=37.2`);
    expect(parseXml(res.text).Session['@org']).toBe('tenant-a');
    expect(String(res.headers['x-vmware-vcloud-access-token'])).toMatch(/\./);
    const token = String(res.headers['x-vmware-vcloud-access-token']);
    const legacy = new Tenant(sim, token);
    expect(parseXml((await legacy.xml('GET', '/api/session')).text).Session['@user']).toBe('alice');
    expect((await legacy.xml('DELETE', '/api/session')).status).toBe(204);
    expect((await legacy.xml('GET', '/api/session')).status).toBe(401);
  });
});

describe('reboot, deploy and slowness', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  const boots: string[] = [];
  beforeAll(async () => {
    sim = await startVirtual({ onBoot: (vm) => void boots.push(`${vm.name}@${vm.ipAddress}`) });
    alice = await Tenant.login(sim);
  });
  afterAll(() => sim.stop());

  it('reboots a running guest (the hook runs again, the address stays) and deploys with forced customization', async () => {
    const l = await lookups(alice);
    const vapp = await composeVApp(sim, alice, l, 'rb');
    const vmPath = (await addVms(sim, alice, l, vapp, [{ name: 'rb-0' }]))['rb-0']!;
    const ip = await boot(sim, alice, vmPath);
    expect(await run(sim, alice, 'POST', `${vmPath}/power/action/reboot`)).toBe('success');
    expect(
      parseXml((await alice.xml('GET', vmPath)).text).Vm.NetworkConnectionSection.NetworkConnection[0]
        .IpAddress,
    ).toBeUndefined();
    sim.clock.advance(1000);
    expect(boots).toEqual([`rb-0@${ip}`, `rb-0@${ip}`]);
    expect(await run(sim, alice, 'POST', `${vmPath}/power/action/powerOff`)).toBe('success');
    const deploy = `<DeployVAppParams xmlns="http://www.vmware.com/vcloud/v1.5" powerOn="true" forceCustomization="true"/>`;
    expect(await run(sim, alice, 'POST', `${vmPath}/action/deploy`, deploy, MT('deployVAppParams'))).toBe(
      'success',
    );
    sim.clock.advance(1000);
    expect(boots).toHaveLength(3);
    const vdc = parseXml((await alice.xml('GET', pathOf(l.vdcHref))).text).Vdc;
    expect(vdc.ResourceEntities.ResourceEntity.map((e: Record<string, string>) => e['@type'])).toEqual([
      MT('vApp'),
      MT('vAppTemplate'),
      MT('vAppTemplate'),
    ]);
  });

  it('answers later when a latency fault is set', async () => {
    sim.faults.slow(80, { path: '/api/org' });
    await alice.xml('GET', '/api/org');
    const entry = sim.inspect.requests().at(-1)!;
    expect(entry.path).toBe('/api/org');
    expect(entry.durationMs).toBeGreaterThanOrEqual(75);
    sim.faults.clear();
  });
});
