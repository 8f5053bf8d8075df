/**
 * A VM's NICs in each IpAddressAllocationMode, as VCD answers them in its NetworkConnectionSection:
 * MANUAL shows its configured address at once and holds it in the network while on; POOL gets a
 * static-pool address at power-on, shown once the guest runs; DHCP gets a lease from the network's
 * DHCP service at boot, or no address on a network without one; power-off gives back all but
 * MANUAL's setting, and a MANUAL address in use by another VM is refused.
 */
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { parseXml, pathOf, startVirtual, Tenant } from './client.js';
import { NS } from './fixtures.js';
import { type Lookups, lookups, MT, run, settle } from './flows.js';

let sim: VcdSim<ManualClock>;
let alice: Tenant;
let l: Lookups;
let vappPath: string;

const nic = (network: string, index: number, mode: string, ip?: string) =>
  `<NetworkConnection network="${network}"><NetworkConnectionIndex>${index}</NetworkConnectionIndex>${
    ip ? `<IpAddress>${ip}</IpAddress>` : ''
  }<IsConnected>true</IsConnected><IpAddressAllocationMode>${mode}</IpAddressAllocationMode><NetworkAdapterType>VMXNET3</NetworkAdapterType></NetworkConnection>`;

const recompose = (name: string, nics: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><RecomposeVAppParams ${NS}><SourcedItem><Source href="${l.templateVmHref}"/>` +
  `<VmGeneralParams><Name>${name}</Name></VmGeneralParams><InstantiationParams><NetworkConnectionSection>` +
  `<ovf:Info>NICs</ovf:Info><PrimaryNetworkConnectionIndex>0</PrimaryNetworkConnectionIndex>${nics}` +
  '</NetworkConnectionSection></InstantiationParams></SourcedItem><AllEULAsAccepted>true</AllEULAsAccepted></RecomposeVAppParams>';

async function addVm(name: string, nics: string): Promise<string> {
  const status = await run(
    sim,
    alice,
    'POST',
    `${vappPath}/action/recomposeVApp`,
    recompose(name, nics),
    MT('recomposeVAppParams'),
  );
  expect(status).toBe('success');
  const vms = parseXml((await alice.xml('GET', vappPath)).text).VApp.Children.Vm;
  const vm = (Array.isArray(vms) ? vms : [vms]).find((v: Record<string, string>) => v['@name'] === name);
  return pathOf(vm['@href']);
}

/** Each NIC's (mode, IpAddress), by NetworkConnectionIndex. */
async function addresses(vmPath: string): Promise<Array<[string, string | undefined]>> {
  const section = parseXml(
    (await alice.xml('GET', `${vmPath}/networkConnectionSection/`)).text,
  ).NetworkConnectionSection;
  const list = Array.isArray(section.NetworkConnection)
    ? section.NetworkConnection
    : [section.NetworkConnection];
  return list.map((c: Record<string, string>) => [c.IpAddressAllocationMode as string, c.IpAddress]);
}

beforeAll(async () => {
  sim = await startVirtual();
  alice = await Tenant.login(sim);
  l = await lookups(alice);
  const ipsHref = await alice.find('orgVdcNetwork', 'name==net-a-ips');
  const config = (name: string, href: string) =>
    `<NetworkConfig networkName="${name}"><Configuration><ParentNetwork href="${href}"/><FenceMode>bridged</FenceMode></Configuration></NetworkConfig>`;
  const res = await alice.xml(
    'POST',
    `${pathOf(l.vdcHref)}/action/composeVApp`,
    `<?xml version="1.0" encoding="UTF-8"?><ComposeVAppParams ${NS} name="modes"><InstantiationParams><NetworkConfigSection><ovf:Info>n</ovf:Info>${config('net-a', l.netHref)}${config('net-a-ips', ipsHref)}</NetworkConfigSection></InstantiationParams><AllEULAsAccepted>true</AllEULAsAccepted></ComposeVAppParams>`,
    MT('composeVAppParams'),
  );
  expect(res.status, res.text).toBe(201);
  const vapp = parseXml(res.text).VApp;
  await settle(sim, alice, vapp.Tasks.Task['@href']);
  vappPath = pathOf(vapp['@href']);
});
afterAll(() => sim.stop());

describe('NIC allocation modes', () => {
  it('MANUAL at once, POOL and DHCP once booted, no DHCP service no address; power-off gives them back', async () => {
    const vmPath = await addVm(
      'multi',
      nic('net-a', 0, 'MANUAL', '10.10.0.5') +
        nic('net-a', 1, 'DHCP') +
        nic('net-a-ips', 2, 'POOL') +
        nic('net-a-ips', 3, 'DHCP'),
    );
    expect(await addresses(vmPath)).toEqual([
      ['MANUAL', '10.10.0.5'],
      ['DHCP', undefined],
      ['POOL', undefined],
      ['DHCP', undefined],
    ]);
    expect(await run(sim, alice, 'POST', `${vmPath}/power/action/powerOn`)).toBe('success');
    sim.clock.advance(10_000);
    expect(await addresses(vmPath)).toEqual([
      ['MANUAL', '10.10.0.5'],
      ['DHCP', '10.10.0.20'], // net-a's DHCP pool
      ['POOL', '10.60.0.100'], // net-a-ips's static pool
      ['DHCP', undefined], // net-a-ips has no DHCP service
    ]);
    const id = sim.inspect.vm('multi')?.id;
    expect(sim.inspect.pool('net-a')?.allocated).toEqual({ '10.10.0.5': id, '10.10.0.20': id });

    // Another VM asking for the same MANUAL address cannot power on.
    const twin = await addVm('twin', nic('net-a', 0, 'MANUAL', '10.10.0.5'));
    const refused = await alice.xml('POST', `${twin}/power/action/powerOn`);
    const task =
      refused.status === 202
        ? (await settle(sim, alice, parseXml(refused.text).Task['@href'])).task
        : undefined;
    expect(JSON.stringify(task ?? refused.text)).toMatch(/10\.10\.0\.5 is already in use/);

    expect(await run(sim, alice, 'POST', `${vmPath}/power/action/powerOff`)).toBe('success');
    expect(sim.inspect.pool('net-a')?.allocated).toEqual({});
    expect(await addresses(vmPath)).toEqual([
      ['MANUAL', '10.10.0.5'],
      ['DHCP', undefined],
      ['POOL', undefined],
      ['DHCP', undefined],
    ]);
  });
});
