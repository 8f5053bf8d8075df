/**
 * The provider under real Cluster API (core + CABPK) against vcdsim over HTTPS, run as its
 * ServiceAccount under a Manager: a Cluster with a user-supplied endpoint, one control-plane
 * Machine and a 3-replica MachineDeployment; bootstrap data reaches each VM byte for byte (CABPK’s
 * cloud-config, and its ignition for a `format: ignition` KubeadmConfig); the
 * guest registers its Node, so every Machine runs; no load-balancer call is made; scale 3 → 5 → 1;
 * a paused VCDMachine makes no VCD write; deleting the Cluster leaves nothing in vcdsim.
 */

import { Event, Secret } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENT_SOURCE,
  type Machine,
  MachineType,
  PAUSED_ANNOTATION,
  PROVIDER_ID_PREFIX,
  VCDClusterType,
  VCDMachineType,
} from '../../src/index.js';
import { MachineDeploymentType } from './capi.js';
import { Harness } from './harness.js';
import { POOL_LABEL } from './objects.js';

const ns = 'e2e-provision';
let h: Harness;

beforeAll(async () => {
  // A recompose that outlasts several of the waiting machines' 200 ms rechecks (see the first test).
  h = await Harness.start({ namespace: ns, operationLatencyMs: { vdcRecomposeVapp: 1500 } });
  await h.prepareCluster('c1');
  await h.startProvider();
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const machines = async () => (await h.client.list(MachineType, { namespace: ns })).items;
const running = (m: Machine) => m.status?.phase === 'Running' && m.status.nodeRef !== undefined;
const vmsOf = (vapp: string) => {
  const w = h.sim.inspect.world;
  const app = [...w.vapps.values()].find((a) => a.name === vapp);
  return app ? app.vmIds.map((id) => w.vms.get(id)!) : [];
};
const workers = async () => (await machines()).filter((m) => m.metadata.labels?.[POOL_LABEL] === 'c1-md-0');
/** The part of an Ignition config the test reads. */
interface IgnitionConfig {
  ignition: { version: string };
  storage?: { files?: Array<{ contents?: { source?: string } }> };
}
/** A file's text from its `data:` URL (URL-encoded, or base64). */
const fileText = (file: { contents?: { source?: string } }): string => {
  const match = /^data:([^,]*),(.*)$/s.exec(file.contents?.source ?? '');
  if (!match) return '';
  const [, kind, data] = match as unknown as [string, string, string];
  return kind.endsWith(';base64') ? Buffer.from(data, 'base64').toString() : decodeURIComponent(data);
};
const wait = <T>(what: string, fn: () => Promise<T | undefined>, timeoutMs?: number) =>
  h.wait(what, fn, timeoutMs);

describe('capvcd under Cluster API', () => {
  it('provisions a control plane and 3 workers; bootstrap data byte for byte; every Machine Running', async () => {
    const before = h.lastSeq();
    await h.plane.createObjects([
      ...h.clusterObjects('c1', { host: '10.10.0.5', port: 6443 }),
      ...h.controlPlaneObjects('c1', 'c1-cp-0'),
      ...h.workerObjects('c1', 'c1-md-0', 3),
    ]);
    // Ready may flip False for a moment after Running (a VCD busy answer while a sibling's VM is
    // composed into the shared vApp): wait for both, then check the rest once.
    const all = await wait(
      '4 Machines Running with a nodeRef, their VCDMachines Ready',
      async () => {
        const list = await machines();
        if (list.length !== 4 || !list.every(running)) return undefined;
        for (const machine of list) {
          const vcdMachine = await h.client.get(VCDMachineType, {
            namespace: ns,
            name: machine.spec?.infrastructureRef?.name as string,
          });
          if (vcdMachine.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True')
            return undefined;
        }
        return list;
      },
      240_000,
    );
    for (const machine of all) {
      const vcdMachine = await h.client.get(VCDMachineType, {
        namespace: ns,
        name: machine.spec?.infrastructureRef?.name as string,
      });
      expect(vcdMachine.status?.initialization?.provisioned).toBe(true);
      expect(vcdMachine.status?.ready).toBe(true);
      expect(vcdMachine.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      const vm = h.sim.inspect.vm(vcdMachine.status?.vmName as string);
      expect(vm, vcdMachine.metadata.name).toBeDefined();
      expect(vcdMachine.spec.providerID).toBe(`${PROVIDER_ID_PREFIX}urn:vcloud:vm:${vm?.id}`);
      expect(machine.spec?.providerID).toBe(vcdMachine.spec.providerID);
      expect(vcdMachine.status?.addresses).toContainEqual({
        type: 'InternalIP',
        address: vm?.nics[0]?.ipAddress,
      });
      // The CABPK Secret's value, byte for byte, in guestinfo.userdata (nothing merged in).
      const secret = await h.client.get(Secret, {
        namespace: ns,
        name: machine.spec?.bootstrap?.dataSecretName as string,
      });
      const guestinfo = h.booted.get(vm?.name as string) as Record<string, string>;
      expect(Buffer.from(secret.data?.format as string, 'base64').toString()).toBe('cloud-config');
      expect(Buffer.from(guestinfo['guestinfo.userdata'] as string, 'base64')).toEqual(
        Buffer.from(secret.data?.value as string, 'base64'),
      );
      expect(guestinfo['guestinfo.userdata.encoding']).toBe('base64');
      const meta = JSON.parse(Buffer.from(guestinfo['guestinfo.metadata'] as string, 'base64').toString());
      expect(meta).toMatchObject({ 'instance-id': `urn:vcloud:vm:${vm?.id}`, 'local-hostname': vm?.name });
      expect(vm?.guest.enabled).toBe(false); // no VCD guest customization unless asked
      expect(vm?.disks[0]?.sizeMb).toBe(
        machine.metadata.labels?.['cluster.x-k8s.io/control-plane'] === undefined ? 30 * 1024 : 20480,
      );
    }
    // One vApp for the cluster, holding exactly these 4 VMs.
    expect(vmsOf('c1')).toHaveLength(4);
    // Not one look at the vApp while a recompose started by a sibling holds it: VCD could only
    // have answered "busy" (VAppLocks). Before, the waiting workers looked every ~200 ms.
    const app = [...h.sim.inspect.world.vapps.values()].find((a) => a.name === 'c1');
    const recomposes = h.sim.inspect
      .tasks()
      .filter((t) => t.operationName === 'vdcRecomposeVapp' && t.owner.path === `/api/vApp/vapp-${app?.id}`);
    // The 4 VMs joined the vApp in at most 4 recomposes (workers waiting together share one).
    expect(recomposes.length).toBeGreaterThanOrEqual(1);
    expect(recomposes.length).toBeLessThanOrEqual(4);
    const looks = h.sim.inspect
      .requests()
      .filter((r) => r.seq > before && r.method === 'GET' && r.path === `/api/vApp/vapp-${app?.id}`);
    expect(looks.length).toBeGreaterThanOrEqual(4);
    const lookedWhileLocked = looks.filter((r) =>
      recomposes.some(
        (t) => r.at - r.durationMs > t.startTime && r.at < (t.endTime ?? Number.POSITIVE_INFINITY),
      ),
    );
    expect(lookedWhileLocked).toEqual([]);
    const cluster = await h.client.get(VCDClusterType, { namespace: ns, name: 'c1' });
    expect(cluster.status?.initialization?.provisioned).toBe(true);
    // A user-supplied endpoint: not one load-balancer call.
    const lbCalls = h.sim.inspect
      .requests()
      .filter((r) => r.seq > before && r.path.includes('/loadBalancer'));
    expect(lbCalls).toEqual([]);
    // One login for the one set of credentials.
    expect(h.provider?.handle.connections.logins).toBe(1);
    // Metrics: VCD calls by method, path template and code; task durations. Events per write.
    const port = h.provider?.manager.listening.metrics;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const clones = text.match(
      /^capvcd_vcd_requests_total\{method="POST",path="\/api\/vApp\/vapp-\{id\}\/action\/recomposeVApp",code="202"\} (\d+)/m,
    );
    expect(Number(clones?.[1])).toBe(recomposes.length);
    expect(text).toMatch(
      /^capvcd_vcd_task_duration_seconds_count\{operation="CreateVM",result="success"\} [1-9]/m,
    );
    const events = await eventually(
      async () => {
        const list = (await h.client.list(Event, { namespace: ns })).items;
        return list.some((e) => e.reason === 'CreateVM' && e.regarding?.kind === 'VCDMachine')
          ? list
          : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(events.find((e: Event) => e.reason === 'PowerOn')?.reportingController).toBe(EVENT_SOURCE);
  }, 300_000);

  it('an ignition KubeadmConfig: CABPK’s ignition data in the ignition keys, byte for byte, no userdata', async () => {
    await h.plane.createObjects(
      h.machineObjects('c1', 'c1-ign', {
        controlPlane: false,
        kubeadm: { format: 'ignition', preKubeadmCommands: ['echo ignition worker'] },
      }),
    );
    const machine = await wait('the ignition Machine Running', async () => {
      const m = await h.client.get(MachineType, { namespace: ns, name: 'c1-ign' });
      return running(m) ? m : undefined;
    });
    // Real CABPK wrote it: format ignition, an Ignition config (JSON), our command in one of its files.
    const secret = await h.client.get(Secret, {
      namespace: ns,
      name: machine.spec?.bootstrap?.dataSecretName as string,
    });
    expect(Buffer.from(secret.data?.format as string, 'base64').toString()).toBe('ignition');
    const value = Buffer.from(secret.data?.value as string, 'base64');
    const config = JSON.parse(value.toString()) as IgnitionConfig;
    expect(config.ignition.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect((config.storage?.files ?? []).map(fileText).join('\n')).toContain('echo ignition worker');
    const guestinfo = h.booted.get('c1-ign') as Record<string, string>;
    expect(Buffer.from(guestinfo['guestinfo.ignition.config.data'] as string, 'base64')).toEqual(value);
    expect(guestinfo['guestinfo.ignition.config.data.encoding']).toBe('base64');
    expect(Object.keys(guestinfo).filter((k) => k.startsWith('guestinfo.userdata'))).toEqual([]);
  }, 180_000);

  it('scales the workers 3 → 5 → 1, removing the VMs of the machines that go', async () => {
    const md = { namespace: ns, name: 'c1-md-0' };
    await h.client.patch(MachineDeploymentType, md, 'merge', { spec: { replicas: 5 } });
    await wait(
      '5 workers Running',
      async () => {
        const w = await workers();
        return w.length === 5 && w.every(running) ? w : undefined;
      },
      240_000,
    );
    expect(vmsOf('c1')).toHaveLength(7);
    await h.client.patch(MachineDeploymentType, md, 'merge', { spec: { replicas: 1 } });
    const [left] = await wait(
      '1 worker left',
      async () => {
        const w = await workers();
        return w.length === 1 && (await h.client.list(VCDMachineType, { namespace: ns })).items.length === 3
          ? w
          : undefined;
      },
      240_000,
    );
    const vms = vmsOf('c1')
      .map((v) => v.name)
      .sort();
    const vcdMachine = await h.client.get(VCDMachineType, {
      namespace: ns,
      name: left?.spec?.infrastructureRef?.name as string,
    });
    expect(vms).toEqual(['c1-cp-0', 'c1-ign', vcdMachine.status?.vmName].sort());
  }, 300_000);

  it('a paused VCDMachine makes no VCD write, even when deleted; unpaused, its VM goes', async () => {
    const key = { namespace: ns, name: 'c1-ign' };
    await h.client.patch(VCDMachineType, key, 'merge', {
      metadata: { annotations: { [PAUSED_ANNOTATION]: 'true' } },
    });
    await wait('Paused=True', async () => {
      const m = await h.client.get(VCDMachineType, key);
      return m.status?.conditions?.find((c) => c.type === 'Paused' && c.status === 'True');
    });
    const seq = h.lastSeq();
    await h.client.delete(MachineType, key);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(h.writesSince(seq)).toEqual([]);
    expect(h.sim.inspect.vm('c1-ign')).toBeDefined();
    expect((await h.client.get(VCDMachineType, key)).metadata.deletionTimestamp).toBeDefined();
    await h.client.patch(VCDMachineType, key, 'json', [
      { op: 'remove', path: `/metadata/annotations/${PAUSED_ANNOTATION.replace('/', '~1')}` },
    ]);
    await wait('the VM of c1-ign gone', async () => (h.sim.inspect.vm('c1-ign') ? undefined : true));
    expect(h.writesSince(seq).length).toBeGreaterThan(0);
  }, 120_000);

  it('deleting the Cluster leaves no VM or vApp of it in vcdsim', async () => {
    await h.plane.request('DELETE', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/c1`);
    await wait(
      'the VCDCluster gone',
      async () => {
        const list = await h.client.list(VCDClusterType, { namespace: ns });
        return list.items.length === 0 ? true : undefined;
      },
      240_000,
    );
    const left = h.vcdObjects();
    expect(left.vms.map((v) => v.name)).toEqual([]);
    expect(left.vapps.map((a) => a.name)).toEqual([]);
    expect(h.sim.inspect.pool('net-a')?.allocated).toEqual({});
    expect(h.sim.inspect.unfinishedTasks()).toEqual([]);
  }, 300_000);
});
