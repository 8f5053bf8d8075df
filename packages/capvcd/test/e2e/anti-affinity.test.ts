/**
 * VM anti-affinity rules (vcdsim's `/api/vdc/{id}/vmAffinityRules`) under real Cluster API: a
 * VCDCluster with `spec.antiAffinity` gets one Required rule over its 3 control-plane VMs and one
 * Preferred rule over its MachineDeployment's 2 workers; a converged cluster makes no VCD write
 * however often it is reconciled; a control-plane Machine deleted leaves the rule before its VM
 * is deleted (a failed rule update is said in AntiAffinityRulesReady, not in the load balancer's
 * condition, and retried), and the rule goes once one VM is left (VCD wants two); deleting the
 * Cluster removes every rule with the VMs. With the endpoint the user's (no load balancer) the
 * rules are kept all the same, and removing `spec.antiAffinity` deletes them, even a rule whose
 * create task was still running when the option went.
 */
import { isDeepStrictEqual } from 'node:util';
import { eventually, WatchRecord } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  affinityRuleName,
  MachineType,
  type VCDCluster,
  VCDClusterType,
  VCDMachineType,
} from '../../src/index.js';
import { Harness } from './harness.js';

const ns = 'e2e-affinity';
const cluster = 'aa1';
const cpRule = affinityRuleName(ns, cluster, { controlPlane: true });
const mdRule = affinityRuleName(ns, cluster, { machineDeployment: `${cluster}-md` });
let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns, taskLatencyMs: 150 });
  await h.prepareCluster(cluster);
  await h.startProvider();
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

/**
 * vcdsim's rules: name → [mandatory, polarity, VM ids sorted]. In name order for reading: vcdsim
 * keeps them in the order made, and which group has two VMs first varies with load (compare them
 * by value, never as JSON text).
 */
const rules = () =>
  Object.fromEntries(
    [...h.sim.inspect.world.affinityRules.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((r) => [r.name, { mandatory: r.mandatory, polarity: r.polarity, vms: [...r.vmIds].sort() }]),
  );

/** The VM ids (vcdsim's uuids) of the named VCDMachines, from their providerIDs. */
async function vmIds(names: string[]): Promise<string[]> {
  const ids = await Promise.all(
    names.map(async (name) => {
      const m = await h.client.get(VCDMachineType, { namespace: ns, name });
      return /urn:vcloud:vm:(.+)$/.exec(m.spec.providerID ?? '')?.[1] ?? `none:${name}`;
    }),
  );
  return ids.sort();
}

const cps = [0, 1, 2].map((i) => `${cluster}-cp-${i}`);

describe('VM anti-affinity rules', () => {
  it('keeps a 3-machine control plane and a MachineDeployment apart, each in its own rule', async () => {
    await h.plane.createObjects([
      ...h.clusterWith(cluster, {
        antiAffinity: { controlPlane: 'Required', machineDeployments: 'Preferred' },
      }),
      ...cps.flatMap((name) => h.controlPlaneObjects(cluster, name)),
      ...h.workerObjects(cluster, `${cluster}-md`, 2),
    ]);
    const workers = await h.wait(
      '5 VCDMachines provisioned',
      async () => {
        const list = (await h.client.list(VCDMachineType, { namespace: ns })).items;
        const done = list.filter((m) => m.status?.initialization?.provisioned && m.spec.providerID);
        return done.length === 5
          ? done.map((m) => m.metadata.name as string).filter((n) => !cps.includes(n))
          : undefined;
      },
      300_000,
    );
    const cpVms = await vmIds(cps);
    const mdVms = await vmIds(workers);
    const want = {
      [cpRule]: { mandatory: true, polarity: 'Anti-Affinity', vms: cpVms },
      [mdRule]: { mandatory: false, polarity: 'Anti-Affinity', vms: mdVms },
    };
    await h.wait('both rules in VCD', async () => (isDeepStrictEqual(rules(), want) ? true : undefined));
    // The VCDCluster publishes them as VCD shows them (what a deleting machine waits on).
    const published = await h.wait('the rules in status', async () => {
      const c = await h.client.get(VCDClusterType, { namespace: ns, name: cluster });
      const list = c.status?.affinityRules ?? [];
      return list.length === 2 && !c.status?.task ? list : undefined;
    });
    expect(published.map((r) => [r.name, r.ovdc, r.mandatory, r.members]).sort()).toEqual(
      [
        [cpRule, 'vdc-a', true, cpVms.map((id) => `urn:vcloud:vm:${id}`)],
        [mdRule, 'vdc-a', false, mdVms.map((id) => `urn:vcloud:vm:${id}`)],
      ].sort(),
    );
  }, 360_000);

  it('makes no affinity write once converged, however often the cluster is reconciled', async () => {
    const before = h.lastSeq();
    const reads = () =>
      h.sim.inspect
        .requests()
        .filter((r) => r.seq > before && r.method === 'GET' && r.path.endsWith('/vmAffinityRules')).length;
    // Each annotation change is a reconcile of the VCDCluster; each reconcile reads the rules once.
    for (let i = 0; i < 3; i++) {
      const seen = reads();
      await h.client.patch(VCDClusterType, { namespace: ns, name: cluster }, 'merge', {
        metadata: { annotations: { 'capvcd.test/poke': String(i) } },
      });
      await h.wait(`reconcile ${i} read the rules`, async () => (reads() > seen ? true : undefined));
    }
    const writes = h.writesSince(before);
    expect(writes.filter((w) => w.includes('ffinityRule'))).toEqual([]);
    expect(writes).toEqual([]);
  }, 120_000);
});

describe('VM anti-affinity rules as machines and clusters go', () => {
  it('a deleted control-plane machine leaves the rule before its VM is deleted', async () => {
    const [gone] = await vmIds([`${cluster}-cp-2`]);
    const before = h.lastSeq();
    // The rule's first update fails in VCD: said in the rules' condition, retried.
    const history: WatchRecord<VCDCluster> = await WatchRecord.start(h.plane.kubeConfig, VCDClusterType, {
      namespace: ns,
    });
    h.sim.faults.failTask('vdcUpdateVmAffinityRule', { count: 1, message: 'Injected rule update failure.' });
    await h.client.delete(MachineType, { namespace: ns, name: `${cluster}-cp-2` });
    await h.wait('the Machine gone', async () =>
      (await h.client.list(MachineType, { namespace: ns })).items.some(
        (m) => m.metadata.name === `${cluster}-cp-2`,
      )
        ? undefined
        : true,
    );
    const left = await vmIds([`${cluster}-cp-0`, `${cluster}-cp-1`]);
    await h.wait('the rule holds the other two', async () =>
      JSON.stringify(rules()[cpRule]?.vms) === JSON.stringify(left) ? true : undefined,
    );
    const log = h.sim.inspect.requests().filter((r) => r.seq > before);
    const ruleUpdate = log.find((r) => r.method === 'PUT' && r.path.includes('/api/vmAffinityRule/'))?.seq;
    const vmDelete = log.find((r) => r.method === 'DELETE' && r.path.endsWith(`/api/vApp/vm-${gone}`))?.seq;
    expect(ruleUpdate).toBeDefined();
    expect(vmDelete).toBeDefined();
    expect(ruleUpdate as number).toBeLessThan(vmDelete as number);
    expect(h.sim.inspect.world.vms.has(gone as string)).toBe(false);
    expect(rules()[mdRule]?.vms).toHaveLength(2);
    const cond = (c: VCDCluster, type: string) => c.status?.conditions?.find((x) => x.type === type);
    const failed = history.find((c) =>
      /Injected rule update failure/.test(cond(c, 'AntiAffinityRulesReady')?.message ?? ''),
    );
    expect(cond(failed as VCDCluster, 'AntiAffinityRulesReady')?.status).toBe('False');
    expect(cond(failed as VCDCluster, 'LoadBalancerAvailable')?.status).toBe('True');
    expect(cond(failed as VCDCluster, 'Ready')?.status).toBe('True');
    await history.stop();
    const now = await h.client.get(VCDClusterType, { namespace: ns, name: cluster });
    expect(cond(now, 'AntiAffinityRulesReady')).toMatchObject({ status: 'True', reason: 'Converged' });
  }, 180_000);

  it('a control plane of one has no rule: VCD wants two VMs', async () => {
    await h.client.delete(MachineType, { namespace: ns, name: `${cluster}-cp-1` });
    await h.wait('the control-plane rule gone', async () => (rules()[cpRule] ? undefined : true), 180_000);
    await h.wait('the Machine gone', async () =>
      (await h.client.list(MachineType, { namespace: ns })).items.some(
        (m) => m.metadata.name === `${cluster}-cp-1`,
      )
        ? undefined
        : true,
    );
    expect(Object.keys(rules())).toEqual([mdRule]);
  }, 180_000);

  it('deleting the Cluster removes every rule with the VMs', async () => {
    await h.plane.request('DELETE', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/${cluster}`);
    await h.wait(
      'the VCDCluster gone',
      async () =>
        (await h.client.list(VCDClusterType, { namespace: ns })).items.length === 0 ? true : undefined,
      240_000,
    );
    expect(rules()).toEqual({});
    expect(h.vcdObjects().vms).toEqual([]);
    expect(h.sim.inspect.unfinishedTasks()).toEqual([]);
  }, 300_000);
});

describe('VM anti-affinity turned off', () => {
  it('with the user’s endpoint too; turning the option off deletes the rule', async () => {
    await h.prepareCluster('aa2');
    await h.plane.createObjects([
      ...h.clusterWith('aa2', {
        endpoint: { host: '10.10.0.9', port: 6443 },
        antiAffinity: { controlPlane: 'Preferred' },
      }),
      ...['aa2-cp-0', 'aa2-cp-1'].flatMap((name) => h.controlPlaneObjects('aa2', name)),
    ]);
    const name = affinityRuleName(ns, 'aa2', { controlPlane: true });
    await h.wait(
      'the rule over both VMs',
      async () => {
        const vms = await vmIds(['aa2-cp-0', 'aa2-cp-1']);
        return isDeepStrictEqual(rules()[name], { mandatory: false, polarity: 'Anti-Affinity', vms })
          ? true
          : undefined;
      },
      240_000,
    );
    await h.client.patch(VCDClusterType, { namespace: ns, name: 'aa2' }, 'merge', {
      spec: { antiAffinity: null },
    });
    await h.wait('the rule gone', async () => (rules()[name] ? undefined : true));
    const c = await h.wait('status without rules or their condition', async () => {
      const now = await h.client.get(VCDClusterType, { namespace: ns, name: 'aa2' });
      const left = now.status?.affinityRules?.length ?? 0;
      const cond = now.status?.conditions?.some((x) => x.type === 'AntiAffinityRulesReady');
      return left === 0 && !cond ? now : undefined;
    });
    expect(c.status?.conditions?.find((x) => x.type === 'Ready')?.status).toBe('True');
  }, 300_000);

  it('turned on, then off while its rule is being made: the rule made is deleted', async () => {
    const key = { namespace: ns, name: 'aa2' };
    const name = affinityRuleName(ns, 'aa2', { controlPlane: true });
    const before = h.lastSeq();
    const create = () =>
      h.sim.inspect
        .requests()
        .some((r) => r.seq > before && r.method === 'POST' && r.route === '/api/vdc/{id}/vmAffinityRules');
    await h.client.patch(VCDClusterType, key, 'merge', {
      spec: { antiAffinity: { controlPlane: 'Preferred' } },
    });
    // Off as soon as the create is sent: before its task (150 ms) has ended and been seen.
    await eventually(async () => (create() ? true : undefined), {
      what: 'the rule’s create sent',
      timeoutMs: 60_000,
      intervalMs: 5,
    });
    await h.client.patch(VCDClusterType, key, 'merge', { spec: { antiAffinity: null } });
    await h.wait('the rule made and then gone', async () => {
      const made = h.sim.inspect
        .requests()
        .some((r) => r.seq > before && r.method === 'DELETE' && r.route === '/api/vmAffinityRule/{id}');
      return made && !rules()[name] ? true : undefined;
    });
    const c = await h.wait('status without task, rules or their condition', async () => {
      const now = await h.client.get(VCDClusterType, key);
      const cond = now.status?.conditions?.some((x) => x.type === 'AntiAffinityRulesReady');
      return !now.status?.task && !now.status?.affinityRules?.length && !cond ? now : undefined;
    });
    expect(c.status?.conditions?.find((x) => x.type === 'Ready')?.status).toBe('True');
    expect(h.sim.inspect.unfinishedTasks()).toEqual([]);
  }, 180_000);
});
