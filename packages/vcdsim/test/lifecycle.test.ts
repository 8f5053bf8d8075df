/** The happy path a provider walks, over real HTTPS: find, compose, recompose, configure, boot, delete. */
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { parseXml, pathOf, startVirtual, Tenant } from './client.js';
import { composeParams, recomposeParams, reconfigureExtraConfig } from './fixtures.js';

const MT = (k: string) => `application/vnd.vmware.vcloud.${k}+xml`;

describe('a VM from template to deletion', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  const booted: { name: string; guestinfo: Record<string, string>; ip: string | undefined }[] = [];

  beforeAll(async () => {
    sim = await startVirtual({
      onBoot: (vm, guestinfo) => void booted.push({ name: vm.name, guestinfo, ip: vm.ipAddress }),
    });
    alice = await Tenant.login(sim);
  });
  afterAll(() => sim.stop());

  async function finish(taskHref: string): Promise<Record<string, unknown>> {
    sim.clock.advance(1000);
    const t = parseXml((await alice.xml('GET', pathOf(taskHref))).text).Task;
    return t;
  }

  it('walks the whole life of a VM', async () => {
    const vdcHref = await alice.find('orgVdc', 'name==vdc-a');
    const netHref = await alice.find('orgVdcNetwork', 'name==net-a;vdcName==vdc-a');
    const templateHref = await alice.find('vAppTemplate', 'catalogName==templates;name==ubuntu*');
    const template = parseXml((await alice.xml('GET', pathOf(templateHref))).text).VAppTemplate;
    const templateVmHref = String(template.Children.Vm[0]['@href']);

    const composed = await alice.xml(
      'POST',
      `${pathOf(vdcHref)}/action/composeVApp`,
      composeParams('cluster-1', netHref),
      MT('composeVAppParams'),
    );
    expect(composed.status).toBe(201);
    expect(composed.headers['content-type']).toBe(`${MT('vApp')};version=37.2`);
    const vapp = parseXml(composed.text).VApp;
    expect(vapp['@status']).toBe('0');
    const composeTask = vapp.Tasks.Task;
    expect(composeTask['@operationName']).toBe('vdcComposeVapp');
    expect((await finish(composeTask['@href']))['@status']).toBe('success');
    const vappPath = pathOf(vapp['@href']);
    expect(parseXml((await alice.xml('GET', vappPath)).text).VApp['@status']).toBe('8');

    const recomposed = await alice.xml(
      'POST',
      `${vappPath}/action/recomposeVApp`,
      recomposeParams([{ templateVmHref, name: 'worker-0', diskMb: 30720 }]),
      MT('recomposeVAppParams'),
    );
    expect(recomposed.status).toBe(202);
    const recomposeTask = parseXml(recomposed.text).Task;
    expect(recomposeTask['@status']).toBe('queued');
    expect(recomposeTask.Owner['@href']).toBe(vapp['@href']);
    expect((await finish(recomposeTask['@href']))['@status']).toBe('success');

    const vmHref = String(parseXml((await alice.xml('GET', vappPath)).text).VApp.Children.Vm[0]['@href']);
    const vmPath = pathOf(vmHref);
    let vm = parseXml((await alice.xml('GET', vmPath)).text).Vm;
    expect(vm['@status']).toBe('8');
    expect(vm['@name']).toBe('worker-0');
    expect(vm.NetworkConnectionSection.NetworkConnection[0].IpAddress).toBeUndefined();
    expect(vm.VmSpecSection.DiskSection.DiskSettings.SizeMb).toBe('30720');

    const userdata = Buffer.from('#cloud-config\n').toString('base64');
    const reconf = await alice.xml(
      'POST',
      `${vmPath}/action/reconfigureVm`,
      reconfigureExtraConfig('worker-0', {
        'guestinfo.userdata': userdata,
        'guestinfo.userdata.encoding': 'base64',
      }),
      MT('vm'),
    );
    expect(reconf.status).toBe(202);
    expect((await finish(parseXml(reconf.text).Task['@href']))['@status']).toBe('success');

    const on = await alice.xml('POST', `${vmPath}/power/action/powerOn`);
    expect(on.status).toBe(202);
    expect((await finish(parseXml(on.text).Task['@href']))['@status']).toBe('success');
    vm = parseXml((await alice.xml('GET', vmPath)).text).Vm;
    expect(vm['@status']).toBe('4');
    sim.clock.advance(500);
    vm = parseXml((await alice.xml('GET', vmPath)).text).Vm;
    const ip = vm.NetworkConnectionSection.NetworkConnection[0].IpAddress;
    expect(ip).toBe('10.10.0.100');
    expect(booted).toEqual([
      {
        name: 'worker-0',
        guestinfo: { 'guestinfo.userdata': userdata, 'guestinfo.userdata.encoding': 'base64' },
        ip,
      },
    ]);
    expect(sim.inspect.pool('net-a')?.allocated).toEqual({ '10.10.0.100': sim.inspect.vm('worker-0')!.id });

    const off = await alice.xml('POST', `${vmPath}/power/action/powerOff`);
    expect((await finish(parseXml(off.text).Task['@href']))['@status']).toBe('success');
    expect(sim.inspect.pool('net-a')?.allocated).toEqual({});
    const undeploy = await alice.xml(
      'POST',
      `${vmPath}/action/undeploy`,
      '<UndeployVAppParams xmlns="http://www.vmware.com/vcloud/v1.5"><UndeployPowerAction>powerOff</UndeployPowerAction></UndeployVAppParams>',
      MT('undeployVAppParams'),
    );
    expect((await finish(parseXml(undeploy.text).Task['@href']))['@status']).toBe('success');
    const del = await alice.xml('DELETE', vmPath);
    expect(del.status).toBe(202);
    expect((await finish(parseXml(del.text).Task['@href']))['@status']).toBe('success');
    expect((await alice.xml('GET', vmPath)).status).toBe(403);
    const delApp = await alice.xml('DELETE', vappPath);
    expect((await finish(parseXml(delApp.text).Task['@href']))['@status']).toBe('success');
    // Per machine: GETs of the VM, its reconfigure/power/undeploy/delete calls and their task polls.
    const mine = sim.inspect.requestsFor(vmPath.replace('/api/vApp/vm-', ''));
    expect(
      mine.filter((e) => e.method === 'POST').map((e) => e.path.replace(/.*vm-[0-9a-f-]{36}/, '')),
    ).toEqual([
      '/action/reconfigureVm',
      '/power/action/powerOn',
      '/power/action/powerOff',
      '/action/undeploy',
    ]);
    expect(mine.filter((e) => e.method === 'DELETE')).toHaveLength(1);
    expect(mine.filter((e) => e.path.startsWith('/api/task/'))).toHaveLength(5);
    expect(sim.inspect.unfinishedTasks()).toEqual([]);
    expect(sim.inspect.errors()).toEqual([]);
  });
});
