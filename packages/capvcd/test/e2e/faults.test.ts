import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Machine, MachineType, VCDMachineType } from '../../src/index.js';
import { MachineDeploymentType } from './capi.js';
import { conditionText } from './condition-history.js';
import { Harness, SCALED_TIMINGS } from './harness.js';

const ns = 'e2e-faults';
/** The storm runs with drift checks on, at a period scaled as the rest (2 s for VCD's 5 min). */
const DRIFT_MS = 2_000;
const withDrift = { ...SCALED_TIMINGS, driftPeriodMs: DRIFT_MS };
let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns, taskLatencyMs: 200 });
  await h.prepareCluster('f1');
  await h.startProvider(withDrift);
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const vcdMachines = async () => (await h.client.list(VCDMachineType, { namespace: ns })).items;
const running = (m: Machine) => m.status?.phase === 'Running' && m.status.nodeRef !== undefined;
/** Succeeded recompose tasks (one VM each here: the machines come one by one) and the VMs in vcdsim. */
const created = () =>
  h.sim.inspect.tasks().filter((t) => t.operationName === 'vdcRecomposeVapp' && t.status === 'success')
    .length;
const vmNames = () => [...h.sim.inspect.world.vms.values()].map((v) => v.name).sort();
/** One VM per VCDMachine and one vApp for the cluster: nothing made twice, nothing left over. */
const everyMachineOnce = async () => {
  const names = (await vcdMachines()).map((m) => m.status?.vmName).sort();
  expect(vmNames()).toEqual(names);
  expect([...h.sim.inspect.world.vapps.values()].filter((a) => a.name === 'f1')).toHaveLength(1);
};
const wait = <T>(what: string, fn: () => Promise<T | undefined>, timeoutMs?: number) =>
  h.wait(what, fn, timeoutMs);

describe('capvcd under faults', () => {
  it('failed tasks, 5xx bursts and expired tokens: said in conditions, backed off, no second VM or vApp', async () => {
    // The failure condition lasts only until the retry: every state is recorded, none sampled.
    const started = Date.now();
    const history = await h.recordConditions();
    h.sim.faults.failTask('vdcComposeVapp', { count: 1, message: 'Injected compose failure.' });
    h.sim.faults.failTask('vdcRecomposeVapp', { count: 2, message: 'Injected clone failure.' });
    h.sim.faults.httpErrors(503, 8, { method: 'GET', path: '/api/vApp/vapp-{id}' });
    await h.plane.createObjects([
      ...h.clusterObjects('f1', { host: '10.10.0.7', port: 6443 }),
      ...h.controlPlaneObjects('f1', 'f1-cp-0'),
      ...h.workerObjects('f1', 'f1-md-0', 2),
    ]);
    const said = await wait('a condition naming the injected failure', async () =>
      history.find((m) => /Injected (compose|clone) failure/.test(conditionText(m))),
    );
    expect(said.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    await wait('a VM created', async () => (vmNames().length > 0 ? true : undefined));
    h.sim.faults.expireTokens();
    const all = await wait(
      '3 Machines Running',
      async () => {
        const list = (await h.client.list(MachineType, { namespace: ns })).items;
        return list.length === 3 && list.every(running) ? list : undefined;
      },
      240_000,
    );
    expect(all).toHaveLength(3);
    await everyMachineOnce();
    expect(created()).toBe(3);
    expect(h.sim.inspect.unfinishedTasks()).toEqual([]);
    // One login, one more after the expiry (not one per reconcile).
    const logins = h.provider?.handle.connections.logins ?? 0;
    expect(logins).toBeGreaterThanOrEqual(2);
    expect(logins).toBeLessThanOrEqual(3);
    // The failed writes backed off: the 503 burst and the failed tasks cost few calls in all,
    // besides the drift checks' VM reads: at most one per machine per (jittered) period.
    const driftReads = h.sim.inspect.requests().filter((r) => r.route === '/api/vApp/vm-{id}').length;
    const periods = Math.floor((Date.now() - started) / (0.75 * DRIFT_MS)) + 1;
    expect(driftReads).toBeLessThanOrEqual(3 * periods);
    expect(h.sim.inspect.requestTotal() - driftReads).toBeLessThan(250);
    console.info(`fault storm: ${driftReads} drift reads by 3 machines over ${Date.now() - started} ms`);
  }, 300_000);

  it('IP exhaustion: the power-on fails with VCD’s message in a condition; freed, the VM comes up', async () => {
    const history = await h.recordConditions();
    h.sim.faults.exhaustIpPool('net-a');
    await h.client.patch(MachineDeploymentType, { namespace: ns, name: 'f1-md-0' }, 'merge', {
      spec: { replicas: 3 },
    });
    const stuck = await wait('a condition saying no address is left', async () =>
      history.find((m) => /No IP addresses are available/.test(conditionText(m))),
    );
    expect(stuck.status?.initialization?.provisioned).not.toBe(true);
    h.sim.faults.clear();
    await wait(
      '4 Machines Running',
      async () => {
        const list = (await h.client.list(MachineType, { namespace: ns })).items;
        return list.length === 4 && list.every(running) ? list : undefined;
      },
      240_000,
    );
    await everyMachineOnce();
    expect(created()).toBe(4);
  }, 300_000);

  it('the provider killed mid-provisioning: a new one carries on without a second VM', async () => {
    const seq = h.lastSeq();
    await h.client.patch(MachineDeploymentType, { namespace: ns, name: 'f1-md-0' }, 'merge', {
      spec: { replicas: 4 },
    });
    await wait('the new machine’s clone started', async () =>
      h.sim.inspect.requests().some((r) => r.seq > seq && r.route.endsWith('/action/recomposeVApp'))
        ? true
        : undefined,
    );
    await h.provider?.stop(); // killed with its clone task in flight (and perhaps its status unwritten)
    await h.startProvider(withDrift);
    await wait(
      '5 Machines Running',
      async () => {
        const list = (await h.client.list(MachineType, { namespace: ns })).items;
        return list.length === 5 && list.every(running) ? list : undefined;
      },
      240_000,
    );
    await everyMachineOnce();
    expect(created()).toBe(5);
  }, 300_000);
});
