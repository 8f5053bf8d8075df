/**
 * A cluster laid out in VCD as CAPVCD lays it out (its controllers' source: the vApp named after
 * the VCDCluster with `CapvcdInfraId=<status.infraId>` metadata, one VM per Machine named after
 * it, powered on; pool and virtual service named `<cluster>-<infraId>-tcp` with the control-plane
 * VMs as members), made through VCD's API as CAPVCD makes it, with no description marker of ours.
 */
import { setTimeout as sleep } from 'node:timers/promises';
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
import { composeVApp, createVm, getVApp, powerOn } from '../../src/vcd/vapp.js';
import { esc } from '../../src/vcd/xml.js';
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
  const c = connections.connect(site, { org: 'tenant-a', username: 'alice', password: 'alice-password' });
  try {
    const vdc = await c.directory.vdc('vdc-a');
    const networks = await c.directory.networks('vdc-a', ['net-a']);
    const composed = await settled(
      c,
      await composeVApp(c.vcd, vdc.href, { name: cluster, description: '', networks }),
    );
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
    const templateVmHref = await c.directory.templateVm(TEMPLATE.catalog, TEMPLATE.template);
    for (const name of [...machines.controlPlane, ...machines.workers]) {
      const vapp = await getVApp(c.vcd, vappHref);
      await settled(
        c,
        await createVm(c.vcd, vapp.href, {
          name,
          description: '',
          templateVmHref,
          networks: ['net-a'],
          newVAppNetworks: [],
          guestCustomization: false,
        }),
      );
      const vm = (await getVApp(c.vcd, vappHref)).vms.find((v) => v.name === name);
      if (!vm) throw new Error(`VM ${name} not made`);
      await settled(c, await powerOn(c.vcd, vm.href));
    }
    const vms = new Map<string, { urn: string; ip: string }>();
    for (const vm of await vmsWithIps(c, vappHref)) vms.set(vm.name, { urn: vm.id, ip: vm.ip as string });
    const loadBalancerName = capvcdLoadBalancerName(cluster, infraId);
    const gw = await edgeGatewayOf(c.vcd, 'net-a');
    await settled(c, await createPool(c.vcd, gw, loadBalancerName, 6443));
    const pool = (await findPool(c.vcd, gw.id, loadBalancerName)) as PoolRecord;
    await settled(
      c,
      await setPoolMembers(
        c.vcd,
        pool,
        machines.controlPlane.map((name) => vms.get(name)?.ip as string),
        6443,
      ),
    );
    const vip = (await freeUplinkAddress(c.vcd, gw.id)) as string;
    const seg = await serviceEngineGroupOf(c.vcd, gw.id);
    await settled(
      c,
      await createVirtualService(c.vcd, {
        name: loadBalancerName,
        gateway: gw,
        seg,
        pool: { id: pool.id, name: pool.name },
        vip,
        port: 6443,
      }),
    );
    return { vappHref, vms, vip, loadBalancerName };
  } finally {
    connections.close();
  }
}
