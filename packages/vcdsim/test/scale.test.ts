/**
 * 100 VMs composed, powered on, powered off and deleted concurrently over HTTPS on real time: every
 * address back in the pool, no task stuck, and the request log agrees with what the clients sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVcdSim, type VcdSim } from '../src/index.js';
import { parseXml, SAMPLE_SEED, Tenant } from './client.js';
import { recomposeParams } from './fixtures.js';
import { composeVApp, type Lookups, lookups, MT, settle } from './flows.js';

const VAPPS = 10;
const PER_VAPP = 10;

describe('100 VMs at once', () => {
  let sim: VcdSim;
  let alice: Tenant;
  let l: Lookups;
  beforeAll(async () => {
    sim = await startVcdSim({ seed: SAMPLE_SEED, taskLatencyMs: 20, bootDelayMs: 20 });
    alice = await Tenant.login(sim);
    l = await lookups(alice);
  });
  afterAll(() => sim.stop());

  /** Sends a 202 call, retrying while VCD says the entity is busy; returns the task's status. */
  async function act(
    method: string,
    path: string,
    body?: string,
    type?: string,
  ): Promise<{ status: string; busy: number }> {
    let busy = 0;
    for (;;) {
      const res = await alice.xml(method, path, body, type);
      if (res.status === 400 && parseXml(res.text).Error['@minorErrorCode'] === 'BUSY_ENTITY') {
        busy++;
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
        continue;
      }
      expect(res.status, res.text).toBe(202);
      return { status: (await settle(sim, alice, parseXml(res.text).Task['@href'])).status, busy };
    }
  }

  async function machine(
    vappPath: string,
    name: string,
  ): Promise<{ ip: string; busy: number; busyOther: number }> {
    let busyOther = 0;
    const step = async (method: string, path: string) => {
      const r = await act(method, path);
      busyOther += r.busy;
      return r;
    };
    const added = await act(
      'POST',
      `${vappPath}/action/recomposeVApp`,
      recomposeParams([{ templateVmHref: l.templateVmHref, name }]),
      MT('recomposeVAppParams'),
    );
    expect(added.status).toBe('success');
    const vmPath = new URL(
      String(
        parseXml((await alice.xml('GET', `/api/query?type=vm&filter=name==${name}`)).text).QueryResultRecords
          .VMRecord[0]['@href'],
      ),
    ).pathname;
    expect((await step('POST', `${vmPath}/power/action/powerOn`)).status).toBe('success');
    let ip: string | undefined;
    while (!ip) {
      const vm = parseXml((await alice.xml('GET', vmPath)).text).Vm;
      ip = vm.NetworkConnectionSection.NetworkConnection[0].IpAddress;
      if (!ip) await new Promise((r) => setTimeout(r, 10));
    }
    expect((await step('POST', `${vmPath}/power/action/powerOff`)).status).toBe('success');
    expect((await step('POST', `${vmPath}/action/undeploy`)).status).toBe('success');
    expect((await step('DELETE', vmPath)).status).toBe('success');
    return { ip, busy: added.busy, busyOther };
  }

  it('keeps pools, tasks and the request log consistent', { timeout: 180_000 }, async () => {
    const vapps = await Promise.all(
      Array.from({ length: VAPPS }, (_, i) => composeVApp(sim, alice, l, `scale-${i}`)),
    );
    sim.inspect.resetRequests();
    const peak = { allocated: 0 };
    const watcher = setInterval(() => {
      peak.allocated = Math.max(peak.allocated, Object.keys(sim.inspect.pool('net-a')!.allocated).length);
    }, 2);
    const results = await Promise.all(
      vapps.flatMap((vappPath, a) =>
        Array.from({ length: PER_VAPP }, (_, i) => machine(vappPath, `m-${a}-${i}`)),
      ),
    );
    clearInterval(watcher);
    expect(results).toHaveLength(100);
    for (const r of results) expect(r.ip).toMatch(/^10\.10\.0\.\d+$/);
    expect(peak.allocated).toBeGreaterThan(1);
    expect(sim.inspect.pool('net-a')!.allocated).toEqual({});
    expect(sim.inspect.unfinishedTasks()).toEqual([]);
    const machineTasks = sim.inspect.tasks().filter((t) => t.operationName !== 'vdcComposeVapp');
    expect(machineTasks).toHaveLength(500);
    expect(machineTasks.every((t) => t.status === 'success')).toBe(true);
    expect(sim.inspect.world.vms.size).toBe(0);

    const log = sim.inspect.requests();
    expect(log).toHaveLength(sim.inspect.requestTotal());
    const counts = sim.inspect.counts();
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(log.length);
    const busy = results.reduce((a, r) => a + r.busy, 0);
    expect(counts['POST /api/vApp/vapp-{id}/action/recomposeVApp']).toBe(100 + busy);
    expect(
      log.filter((e) => e.route === '/api/vApp/vapp-{id}/action/recomposeVApp' && e.status === 202),
    ).toHaveLength(100);
    const accepted = (route: string) => log.filter((e) => e.route === route && e.status === 202).length;
    expect(accepted('/api/vApp/vm-{id}/power/action/powerOn')).toBe(100);
    expect(accepted('/api/vApp/vm-{id}/power/action/powerOff')).toBe(100);
    expect(accepted('/api/vApp/vm-{id}')).toBe(100);
    const refusedBusy = log.filter((e) => e.status === 400).length;
    expect(refusedBusy).toBe(busy + results.reduce((a, r) => a + r.busyOther, 0));
    expect(log.every((e) => e.status < 500)).toBe(true);
    expect(sim.inspect.errors()).toEqual([]);
  });
});
