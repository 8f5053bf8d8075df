/**
 * A cluster laid out in VCD as CAPVCD lays it out (its controllers' source: the vApp named after
 * the VCDCluster with `CapvcdInfraId=<status.infraId>` metadata, or in a DC-group cluster one vApp
 * per zone and node pool; one VM per Machine named after it, powered on; pool and virtual service
 * named `<cluster>-<infraId>-tcp` with the control-plane VMs as members), made through VCD's API
 * as CAPVCD makes it, with no description marker of ours.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { type Connection, Connections } from '../../src/index.js';
import { CAPVCD_INFRA_ID_KEY, capvcdLoadBalancerName } from '../../src/takeover.js';
import {
  createPool,
  createVirtualService,
  edgeGatewayOf,
  findPool,
  freeUplinkAddress,
  type PoolRecord,
  serviceEngineGroupOf,
  setPoolMembers,
} from '../../src/vcd/alb.js';
import { type Task, taskRunning } from '../../src/vcd/client.js';
import { composeVApp, createVms, getVApp, powerOn } from '../../src/vcd/vapp.js';
import { esc } from '../../src/vcd/xml.js';
import type { Harness } from './harness.js';
import { TEMPLATE } from './objects.js';

/** What CAPVCD left in VCD: the vApp, each VM's URN and IP by name, the VIP. */
export interface CapvcdLayout {
  vappHref: string;
  vms: Map<string, { urn: string; ip: string }>;
  vip: string;
  loadBalancerName: string;
}

const METADATA_VALUE = 'application/vnd.vmware.vcloud.metadata.value+xml';

/** Waits for a task to end; throws if it did not succeed. */
async function settled(c: Connection, task: Task): Promise<Task> {
  let t = task;
  while (taskRunning(t)) {
    await sleep(50);
    t = await c.vcd.task(t.href);
  }
  if (t.status !== 'success')
    throw new Error(`${t.operationName ?? 'task'}: ${t.status} ${t.error?.message ?? ''}`);
  return t;
}

/** The vApp's VMs once each reports an IP (the guest reports it a moment after power-on). */
async function vmsWithIps(c: Connection, vappHref: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const vms = (await getVApp(c.vcd, vappHref)).vms;
    const waiting = vms.filter((vm) => !vm.ip).map((vm) => vm.name);
    if (waiting.length === 0) return vms;
    if (Date.now() > deadline) throw new Error(`VMs ${waiting.join(', ')} have no IP after 60 s`);
    await sleep(100);
  }
}

/** A vApp as CAPVCD composes it: bridged to `network`, `CapvcdInfraId` metadata set. */
async function capvcdVApp(c: Connection, vdc: string, network: string, name: string, infraId: string) {
  const vdcHref = (await c.directory.vdc(vdc)).href;
  const networks = await c.directory.networks(vdc, [network]);
  const composed = await settled(c, await composeVApp(c.vcd, vdcHref, { name, description: '', networks }));
  const vappHref = composed.ownerHref as string;
  const metadata = `<MetadataValue xmlns="http://www.vmware.com/vcloud/v1.5" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><TypedValue xsi:type="MetadataStringValue"><Value>${esc(infraId)}</Value></TypedValue></MetadataValue>`;
  await settled(
    c,
    await c.vcd.startTask(
      'PUT',
      `${c.vcd.pathOf(vappHref)}/metadata/${CAPVCD_INFRA_ID_KEY}`,
      metadata,
      METADATA_VALUE,
    ),
  );
  return vappHref;
}

/** One VM per name in the vApp, each powered on; their URNs and IPs join `vms`. */
async function capvcdVms(
  c: Connection,
  vappHref: string,
  network: string,
  names: string[],
  vms: Map<string, { urn: string; ip: string }>,
): Promise<void> {
  const templateVmHref = await c.directory.templateVm(TEMPLATE.catalog, TEMPLATE.template);
  for (const name of names) {
    const vapp = await getVApp(c.vcd, vappHref);
    await settled(
      c,
      await createVms(c.vcd, vapp.href, [
        { name, description: '', templateVmHref, networks: [network], guestCustomization: false },
      ]),
    );
    const vm = (await getVApp(c.vcd, vappHref)).vms.find((v) => v.name === name);
    if (!vm) throw new Error(`VM ${name} not made`);
    await settled(c, await powerOn(c.vcd, vm.href));
  }
  for (const vm of await vmsWithIps(c, vappHref)) vms.set(vm.name, { urn: vm.id, ip: vm.ip as string });
}

/** Pool and virtual service `<cluster>-<infraId>-tcp` on `network`'s edge gateway; the VIP. */
async function capvcdLoadBalancer(c: Connection, network: string, name: string, members: string[]) {
  const gw = await edgeGatewayOf(c.vcd, network);
  await settled(c, await createPool(c.vcd, gw, name, 6443));
  const pool = (await findPool(c.vcd, gw.id, name)) as PoolRecord;
  await settled(c, await setPoolMembers(c.vcd, pool, members, 6443));
  const vip = (await freeUplinkAddress(c.vcd, gw.id)) as string;
  const seg = await serviceEngineGroupOf(c.vcd, gw.id);
  await settled(
    c,
    await createVirtualService(c.vcd, {
      name,
      gateway: gw,
      seg,
      pool: { id: pool.id, name: pool.name },
      vip,
      port: 6443,
    }),
  );
  return vip;
}

const tenantA = (connections: Connections, site: { url: string; caPem: string }) =>
  connections.connect(site, { org: 'tenant-a', username: 'alice', password: 'alice-password' });

/**
 * Lays out cluster `cluster` (infra ID `infraId`) in tenant-a's vdc-a on net-a with one VM per
 * name in `machines`, each powered on with an IP; those in `controlPlane` are the pool's members.
 */
export async function layOutAsCapvcd(
  site: { url: string; caPem: string },
  cluster: string,
  infraId: string,
  machines: { controlPlane: string[]; workers: string[] },
): Promise<CapvcdLayout> {
  const connections = new Connections();
  const c = tenantA(connections, site);
  try {
    const vappHref = await capvcdVApp(c, 'vdc-a', 'net-a', cluster, infraId);
    const vms = new Map<string, { urn: string; ip: string }>();
    await capvcdVms(c, vappHref, 'net-a', [...machines.controlPlane, ...machines.workers], vms);
    const loadBalancerName = capvcdLoadBalancerName(cluster, infraId);
    const members = machines.controlPlane.map((name) => vms.get(name)?.ip as string);
    const vip = await capvcdLoadBalancer(c, 'net-a', loadBalancerName, members);
    return { vappHref, vms, vip, loadBalancerName };
  } finally {
    connections.close();
  }
}

/** One node pool's machines in one zone: the VDC, the pool (KubeadmControlPlane or MachineDeployment). */
export interface ZonePool {
  vdc: string;
  pool: string;
  controlPlane?: boolean;
  machines: string[];
}

/**
 * Lays out a DC-group cluster as CAPVCD does (CreateFullVAppName, getMapOfEdgeGateways): per zone
 * and node pool a vApp `<cluster>_<UUID of the zone's VDC>_<pool>` with `CapvcdInfraId` metadata,
 * its VMs on the DC group's `network` in that VDC; one load balancer on that network's edge
 * gateway, the control-plane VMs its members. Returns the vApps' hrefs by name in `vapps`.
 */
export async function layOutDcGroupAsCapvcd(
  site: { url: string; caPem: string },
  cluster: string,
  infraId: string,
  network: string,
  pools: ZonePool[],
): Promise<CapvcdLayout & { vapps: Map<string, string> }> {
  const connections = new Connections();
  const c = tenantA(connections, site);
  try {
    const vapps = new Map<string, string>();
    const vms = new Map<string, { urn: string; ip: string }>();
    for (const p of pools) {
      const href = (await c.directory.vdc(p.vdc)).href;
      const name = `${cluster}_${href.slice(href.lastIndexOf('/') + 1)}_${p.pool}`;
      const vappHref = await capvcdVApp(c, p.vdc, network, name, infraId);
      vapps.set(name, vappHref);
      await capvcdVms(c, vappHref, network, p.machines, vms);
    }
    const loadBalancerName = capvcdLoadBalancerName(cluster, infraId);
    const members = pools
      .filter((p) => p.controlPlane)
      .flatMap((p) => p.machines.map((m) => vms.get(m)?.ip as string));
    const vip = await capvcdLoadBalancer(c, network, loadBalancerName, members);
    return { vappHref: [...vapps.values()][0] as string, vapps, vms, vip, loadBalancerName };
  } finally {
    connections.close();
  }
}

/**
 * What a takeover must leave as CAPVCD made it: no VCD write since `seq`, the same VMs, vApps and
 * virtual service (id and VIP) as `before`, the pool's members the control-plane VMs' IPs.
 */
export function expectUntouched(
  h: Harness,
  before: ReturnType<Harness['vcdObjects']>,
  seq: number,
  members: string[],
): void {
  // No VCD write: no VM created, deleted, reconfigured or powered; the load balancer untouched.
  expect(h.writesSince(seq)).toEqual([]);
  const after = h.vcdObjects();
  expect(after.vms.map((v) => v.id)).toEqual(before.vms.map((v) => v.id));
  expect(after.vapps.map((v) => v.id)).toEqual(before.vapps.map((v) => v.id));
  expect(after.virtualServices.map((v) => [v.id, v.virtualIpAddress])).toEqual(
    before.virtualServices.map((v) => [v.id, v.virtualIpAddress]),
  );
  expect(after.pools.map((p) => p.members.map((m) => m.ipAddress))).toEqual([members]);
}
