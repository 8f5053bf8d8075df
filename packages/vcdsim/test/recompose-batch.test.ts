/**
 * A recompose carrying several SourcedItems, as VCD answers it (and as capvcd sends its batches):
 * every item checked before the one task starts, so one bad item or a name used twice refuses the
 * whole request and adds nothing; each VM named by its own item; the vApp busy for all of them
 * while the task runs; a failed task leaves none of them behind.
 */
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { parseXml, startVirtual, Tenant } from './client.js';
import { recomposeParams } from './fixtures.js';
import { composeVApp, type Lookups, lookups, MT, settle } from './flows.js';

describe('recompose with several items', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  let l: Lookups;
  let vappPath: string;
  const vmNames = () =>
    [...sim.inspect.world.vms.values()]
      .filter((vm) => vm.vappId === vappPath.replace('/api/vApp/vapp-', ''))
      .map((vm) => vm.name)
      .sort();
  const recompose = (items: Array<{ name: string; network?: string }>) =>
    alice.xml(
      'POST',
      `${vappPath}/action/recomposeVApp`,
      recomposeParams(items.map((i) => ({ ...i, templateVmHref: l.templateVmHref }))),
      MT('recomposeVAppParams'),
    );
  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
    l = await lookups(alice);
    vappPath = await composeVApp(sim, alice, l, 'batch');
  });
  afterAll(() => sim.stop());

  it('refuses the whole request for one bad item or a name given twice, adding nothing', async () => {
    const networksBefore = sim.inspect.world.vapps.get(vappPath.replace('/api/vApp/vapp-', ''))?.networks;
    const badNet = await recompose([{ name: 'ok-1' }, { name: 'bad', network: 'nowhere' }]);
    expect(badNet.status).toBe(400);
    expect(parseXml(badNet.text).Error['@minorErrorCode']).toBe('BAD_REQUEST');
    const twice = await recompose([{ name: 'same' }, { name: 'same' }]);
    expect(twice.status).toBe(400);
    expect(parseXml(twice.text).Error['@minorErrorCode']).toBe('DUPLICATE_NAME');
    expect(vmNames()).toEqual([]);
    expect(sim.inspect.world.vapps.get(vappPath.replace('/api/vApp/vapp-', ''))?.networks).toEqual(
      networksBefore,
    );
    expect(sim.inspect.unfinishedTasks()).toEqual([]);
  });

  it('makes each item its own VM under one task, the vApp busy until it ends', async () => {
    const res = await recompose([{ name: 'w-1' }, { name: 'w-2' }, { name: 'w-3' }]);
    expect(res.status, res.text).toBe(202);
    const task = parseXml(res.text).Task;
    expect(task['@operationName']).toBe('vdcRecomposeVapp');
    // The VMs are in the vApp from the start, unresolved, and the vApp takes no second recompose.
    expect(vmNames()).toEqual(['w-1', 'w-2', 'w-3']);
    const busy = await recompose([{ name: 'w-4' }]);
    expect(busy.status).toBe(400);
    expect(parseXml(busy.text).Error['@minorErrorCode']).toBe('BUSY_ENTITY');
    expect((await settle(sim, alice, task['@href'])).status).toBe('success');
    const vapp = parseXml((await alice.xml('GET', vappPath)).text).VApp;
    const vms = vapp.Children.Vm as Array<Record<string, string>>;
    expect(vms.map((v) => v['@name']).sort()).toEqual(['w-1', 'w-2', 'w-3']);
    expect(vms.every((v) => v['@status'] === '8')).toBe(true); // powered off, each
    expect(new Set(vms.map((v) => v['@href'])).size).toBe(3);
  });

  it('a failed task leaves none of its VMs behind', async () => {
    sim.faults.failTask('vdcRecomposeVapp', { message: 'Clone failed on the datastore.' });
    const res = await recompose([{ name: 'x-1' }, { name: 'x-2' }]);
    expect(res.status, res.text).toBe(202);
    const { status } = await settle(sim, alice, parseXml(res.text).Task['@href']);
    expect(status).toBe('error');
    expect(vmNames()).toEqual(['w-1', 'w-2', 'w-3']);
  });
});
