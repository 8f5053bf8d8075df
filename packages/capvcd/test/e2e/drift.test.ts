/**
 * Drift under real Cluster API: a tenant user powers a worker's VM off in Cloud Director, and
 * capvcd powers it on again with a Warning event; a user deletes one, and capvcd reports
 * VMProvisioned=False/VMNotFound (Ready too, which the Machine mirrors as InfrastructureReady),
 * reads it no more, and a MachineHealthCheck on that condition replaces the machine. A steady fleet
 * costs one VM GET per machine per drift period. When the credentials lose the rights to see the
 * VMs (VCD's 403, as for a gone VM), no machine is taken as gone: the same MachineHealthCheck
 * replaces none, and VMReadable=False/VCDAccessDenied says why.
 */
import type { Condition } from '@capstan/runtime';
import { Event } from '@capstan/runtime/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Machine,
  MachineType,
  VCD_ACCESS_DENIED,
  VCDMachineType,
  VM_NOT_FOUND,
  VM_POWERED_OFF,
} from '../../src/index.js';
import { conditionText } from './condition-history.js';
import { Harness, SCALED_TIMINGS } from './harness.js';
import { deleteInVcd, powerOffInVcd } from './vcd-tenant.js';

const ns = 'e2e-drift';
const DRIFT_MS = 1_500;
let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns });
  await h.prepareCluster('d1');
  await h.startProvider({ ...SCALED_TIMINGS, driftPeriodMs: DRIFT_MS });
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const DEPLOYMENT_LABEL = 'cluster.x-k8s.io/deployment-name';
const machines = async () => (await h.client.list(MachineType, { namespace: ns })).items;
const running = (m: Machine) => m.status?.phase === 'Running' && m.status.nodeRef !== undefined;
const workers = async () => (await machines()).filter((m) => m.metadata.labels?.[DEPLOYMENT_LABEL]);
const vcdMachineOf = (m: Machine) =>
  h.client.get(VCDMachineType, { namespace: ns, name: m.spec?.infrastructureRef?.name as string });
const cond = (m: { status?: unknown }, type: string) =>
  (m.status as { conditions?: Condition[] } | undefined)?.conditions?.find((c) => c.type === type);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The running workers, once there are `n`, and their VMs' names. */
async function runningWorkers(n: number): Promise<Array<{ machine: Machine; vm: string }>> {
  const list = await h.wait(`${n} workers Running`, async () => {
    const ws = await workers();
    return ws.length === n && ws.every(running) ? ws : undefined;
  });
  return Promise.all(
    list.map(async (machine) => ({ machine, vm: (await vcdMachineOf(machine)).status?.vmName as string })),
  );
}

describe('drift of provisioned machines', () => {
  it('a VM powered off in VCD is powered on again, with a Warning event on its VCDMachine', async () => {
    await h.plane.createObjects([
      ...h.clusterObjects('d1', { host: '10.10.0.9', port: 6443 }),
      ...h.controlPlaneObjects('d1', 'd1-cp-0'),
      ...h.workerObjects('d1', 'd1-md-0', 2),
    ]);
    const [victim] = await runningWorkers(2);
    if (!victim) throw new Error('no worker');
    await powerOffInVcd(h, victim.vm);
    await h.wait(`VM ${victim.vm} on again`, async () =>
      h.sim.inspect.vm(victim.vm)?.status === 4 ? true : undefined,
    );
    const name = victim.machine.spec?.infrastructureRef?.name;
    const event = await h.wait('a VMPoweredOff event', async () =>
      (await h.client.list(Event, { namespace: ns })).items.find(
        (e) => e.reason === VM_POWERED_OFF && e.regarding?.name === name,
      ),
    );
    expect(event.type).toBe('Warning');
    expect(event.note).toContain(victim.vm);
    const back = await h.wait('the VCDMachine Ready again', async () => {
      const m = await vcdMachineOf(victim.machine);
      return cond(m, 'Ready')?.status === 'True' ? m : undefined;
    });
    expect(cond(back, 'VMProvisioned')?.status).toBe('True');
  }, 300_000);

  it('a steady fleet costs one VM GET per machine per period, and no write', async () => {
    await runningWorkers(2);
    await sleep(DRIFT_MS); // past any reconcile still settling the power-on
    const before = h.lastSeq();
    const started = Date.now();
    await sleep(4 * DRIFT_MS);
    const elapsed = Date.now() - started;
    const calls = h.sim.inspect.requests().filter((r) => r.seq > before);
    expect(calls.filter((r) => r.method !== 'GET')).toEqual([]);
    const vmReads = calls.filter((r) => r.route === '/api/vApp/vm-{id}');
    // 3 machines; a period is jittered ±25 %, so at most elapsed / (0.75 × period) + 1 reads each.
    const most = 3 * (Math.floor(elapsed / (0.75 * DRIFT_MS)) + 1);
    expect(vmReads.length).toBeGreaterThanOrEqual(3);
    expect(vmReads.length).toBeLessThanOrEqual(most);
    expect(calls.length - vmReads.length).toBeLessThanOrEqual(1); // a token refresh at most
  }, 120_000);

  it('a VM deleted in VCD: VMProvisioned=False/VMNotFound, not read again, replaced by a MachineHealthCheck', async () => {
    const history = await h.recordConditions();
    const [victim] = await runningWorkers(2);
    if (!victim) throw new Error('no worker');
    await deleteInVcd(h, victim.vm);
    const name = victim.machine.spec?.infrastructureRef?.name;
    const gone = await h.wait('VMNotFound said', async () =>
      history.find((m) => m.metadata.name === name && cond(m, 'VMProvisioned')?.reason === VM_NOT_FOUND),
    );
    expect(cond(gone, 'VMProvisioned')?.status).toBe('False');
    expect(cond(gone, 'Ready')).toMatchObject({ status: 'False', reason: VM_NOT_FOUND });
    // Cluster API mirrors it on the Machine, where a MachineHealthCheck can see it.
    await h.wait('the Machine’s InfrastructureReady False', async () => {
      const m = await h.client.get(MachineType, {
        namespace: ns,
        name: victim.machine.metadata.name as string,
      });
      return cond(m, 'InfrastructureReady')?.status === 'False' ? true : undefined;
    });
    // No loop on the vanished VM: nothing asks VCD about it for three periods.
    const before = h.lastSeq();
    await sleep(3 * DRIFT_MS);
    const vmId = (await vcdMachineOf(victim.machine)).spec.providerID?.split(':').at(-1) as string;
    const asked = h.sim.inspect.requests().filter((r) => r.seq > before && r.path.includes(vmId));
    expect(asked, conditionText(gone)).toEqual([]);

    await h.plane.createObjects([
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'MachineHealthCheck',
        metadata: { name: 'd1-md-0', namespace: ns },
        spec: {
          clusterName: 'd1',
          selector: { matchLabels: { [DEPLOYMENT_LABEL]: 'd1-md-0' } },
          checks: {
            unhealthyMachineConditions: [{ type: 'InfrastructureReady', status: 'False', timeoutSeconds: 0 }],
          },
        },
      },
    ]);
    const replaced = await h.wait(
      'the machine replaced',
      async () => {
        const ws = await workers();
        const names = ws.map((m) => m.metadata.name);
        return ws.length === 2 && ws.every(running) && !names.includes(victim.machine.metadata.name)
          ? ws
          : undefined;
      },
      240_000,
    );
    expect(replaced).toHaveLength(2);
    expect(h.sim.inspect.vm(victim.vm)).toBeUndefined();
  }, 300_000);

  it('credentials that lose the right to view vApps: no machine gone, Ready kept, VMReadable=False', async () => {
    const fleet = await h.wait('3 machines Running, Ready', async () => {
      const ms = await machines();
      const vms = await Promise.all(ms.map(vcdMachineOf));
      return ms.length === 3 && ms.every(running) && vms.every((m) => cond(m, 'Ready')?.status === 'True')
        ? ms
        : undefined;
    });
    const names = fleet.map((m) => m.metadata.name).sort();
    const history = await h.recordConditions();
    // A role change: VM, vApp and VDC reads (and queries) are VCD's 403 from now on.
    h.sim.faults.denyAccess(
      { method: 'GET', path: '/api/vApp/vm-{id}' },
      { method: 'GET', path: '/api/vApp/vapp-{id}' },
      { method: 'GET', path: '/api/vdc/{id}' },
      { method: 'GET', path: '/api/query' },
    );
    try {
      const denied = await h.wait('VMReadable=False on every machine', async () => {
        const vms = await Promise.all(fleet.map(vcdMachineOf));
        return vms.every((m) => cond(m, 'VMReadable')?.reason === VCD_ACCESS_DENIED) ? vms : undefined;
      });
      for (const m of denied) {
        expect(cond(m, 'VMReadable')?.status).toBe('False');
        expect(cond(m, 'VMProvisioned')?.status, conditionText(m)).toBe('True');
        expect(cond(m, 'Ready')?.status, conditionText(m)).toBe('True');
      }
      const events = (await h.client.list(Event, { namespace: ns })).items.filter(
        (e) => e.reason === VCD_ACCESS_DENIED,
      );
      expect(events.length).toBeGreaterThanOrEqual(3);
      expect(events.every((e) => e.type === 'Warning')).toBe(true);
      // Several retries later, with the MachineHealthCheck of the last test in place: nothing gone.
      await sleep(6 * DRIFT_MS);
      const ours = new Set(fleet.map((m) => m.spec?.infrastructureRef?.name));
      const notReady = history.find(
        (m) =>
          ours.has(m.metadata.name) &&
          (cond(m, 'VMProvisioned')?.reason === VM_NOT_FOUND || cond(m, 'Ready')?.status === 'False'),
      );
      expect(notReady, notReady && conditionText(notReady)).toBeUndefined();
      const now = await machines();
      expect(now.map((m) => m.metadata.name).sort()).toEqual(names);
      expect(now.every((m) => !m.metadata.deletionTimestamp)).toBe(true);
      for (const m of now) expect(cond(m, 'InfrastructureReady')?.status).toBe('True');
    } finally {
      h.sim.faults.clear();
    }
    // Rights back: the next read says so.
    await h.wait('VMReadable=True again', async () => {
      const vms = await Promise.all(fleet.map(vcdMachineOf));
      return vms.every((m) => cond(m, 'VMReadable')?.status === 'True') ? true : undefined;
    });
  }, 300_000);
});
