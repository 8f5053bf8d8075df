/** Provider-like steps over HTTPS, shared by the tests: look things up, compose, add VMs, run tasks. */
import type { ManualClock } from '@capstan/runtime/testing';
import { expect } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { parseXml, pathOf, type Tenant } from './client.js';
import { composeParams, recomposeParams, type VmItem } from './fixtures.js';

export const MT = (k: string) => `application/vnd.vmware.vcloud.${k}+xml`;

/** The hrefs a provider resolves by name before creating VMs. */
export interface Lookups {
  vdcHref: string;
  netHref: string;
  templateVmHref: string;
}

export async function lookups(
  t: Tenant,
  vdc = 'vdc-a',
  net = 'net-a',
  template = 'ubuntu*',
): Promise<Lookups> {
  const vdcHref = await t.find('orgVdc', `name==${vdc}`);
  const netHref = await t.find('orgVdcNetwork', `name==${net}`);
  const templateHref = await t.find('vAppTemplate', `name==${template}`);
  const tpl = parseXml((await t.xml('GET', pathOf(templateHref))).text).VAppTemplate;
  return { vdcHref, netHref, templateVmHref: String(tpl.Children.Vm[0]['@href']) };
}

/** Reads a task until it is finished, advancing a virtual clock or waiting on a real one. */
export async function settle(
  sim: VcdSim,
  t: Tenant,
  taskHref: string,
): Promise<{ status: string; task: Record<string, unknown> }> {
  for (let i = 0; i < 2000; i++) {
    const task = parseXml((await t.xml('GET', pathOf(taskHref))).text).Task;
    if (['success', 'error', 'aborted'].includes(task['@status'])) return { status: task['@status'], task };
    if ('advance' in sim.clock) (sim.clock as ManualClock).advance(250);
    else await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`task ${taskHref} never finished`);
}

/** Runs a legacy call answering 202 + Task and waits for the task; returns its final status. */
export async function run(
  sim: VcdSim,
  t: Tenant,
  method: string,
  path: string,
  body?: string,
  type?: string,
): Promise<string> {
  const res = await t.xml(method, path, body, type);
  expect(res.status, res.text).toBe(202);
  return (await settle(sim, t, parseXml(res.text).Task['@href'])).status;
}

/** Composes an empty vApp on the network and waits for it; returns its path. */
export async function composeVApp(sim: VcdSim, t: Tenant, l: Lookups, name: string): Promise<string> {
  const res = await t.xml(
    'POST',
    `${pathOf(l.vdcHref)}/action/composeVApp`,
    composeParams(name, l.netHref),
    MT('composeVAppParams'),
  );
  expect(res.status, res.text).toBe(201);
  const vapp = parseXml(res.text).VApp;
  await settle(sim, t, vapp.Tasks.Task['@href']);
  return pathOf(vapp['@href']);
}

/** Adds VMs to a vApp from the template; returns their paths by name. */
export async function addVms(
  sim: VcdSim,
  t: Tenant,
  l: Lookups,
  vappPath: string,
  items: Omit<VmItem, 'templateVmHref'>[],
): Promise<Record<string, string>> {
  const status = await run(
    sim,
    t,
    'POST',
    `${vappPath}/action/recomposeVApp`,
    recomposeParams(items.map((i) => ({ ...i, templateVmHref: l.templateVmHref }))),
    MT('recomposeVAppParams'),
  );
  expect(status).toBe('success');
  const vapp = parseXml((await t.xml('GET', vappPath)).text).VApp;
  const out: Record<string, string> = {};
  for (const vm of vapp.Children?.Vm ?? []) out[vm['@name']] = pathOf(vm['@href']);
  return out;
}

/** Powers a VM on and lets it boot (virtual clock); returns the primary NIC's address. */
export async function boot(sim: VcdSim<ManualClock>, t: Tenant, vmPath: string): Promise<string> {
  expect(await run(sim, t, 'POST', `${vmPath}/power/action/powerOn`)).toBe('success');
  sim.clock.advance(10_000);
  const vm = parseXml((await t.xml('GET', vmPath)).text).Vm;
  return String(vm.NetworkConnectionSection.NetworkConnection[0].IpAddress);
}
