/**
 * The checked summary: a clean run passes; each broken fact (a Machine not Running, no VCD call for
 * a VM, an operator not Available, a node rebooted twice or not onto the new version, a group over
 * budget) fails it and says why; acts not run are not checked. Properties over random runs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterFacts } from '../src/cluster-act.js';
import type { InstallFacts } from '../src/install-act.js';
import { checkMission, formatSummary, type MissionFacts, type RebootFactsView } from '../src/summary.js';
import type { MachineRow } from '../src/tables.js';

const TO = '4459.2.1';
const machine = (name: string, controlPlane = false): MachineRow => ({
  name,
  controlPlane,
  phase: 'Running',
  version: 'v1.35.1',
  node: name,
  vm: name,
  vmStatus: 'POWERED_ON',
  ip: '10.10.0.100',
  calls: 6,
});
const cluster = (): ClusterFacts => ({
  machines: [machine('cp', true), ...['w0', 'w1', 'w2', 'w3', 'w4'].map((n) => machine(n))],
  vcdCalls: 137,
  vcdWrites: 31,
  vcdTasks: 22,
  loadBalancer: { vip: '203.0.113.11', members: 1 },
  nodes: [],
  guestErrors: [],
  rollout: {
    ...{ from: 'v1.35.0', to: 'v1.35.1', replicas: 1, replaced: 1, mostVms: 2, samples: 400 },
    ...{ withoutHealthyMember: 0, membersDown: 0, elapsedMs: 61_000 },
  },
});
const install = (): InstallFacts => ({
  version: '0.1.0',
  stackAvailable: true,
  components: [
    {
      name: 'Deployment capstan-system/capstan-coordinator',
      desired: 2,
      updated: 2,
      available: 2,
      version: '0.1.0',
    },
    {
      name: 'DaemonSet capstan-system/capstan-agent',
      desired: 6,
      updated: 6,
      available: 6,
      version: '0.1.0',
    },
  ],
  groups: [],
});
const reboot = (): RebootFactsView => ({
  machines: ['cp', 'w0', 'w1', 'w2', 'w3', 'w4'].map((name) => ({
    name,
    rebootRequests: 1,
    bootIDs: ['a', 'b'],
    versions: ['4459.2.0', TO],
  })),
  groups: [
    { name: 'control-plane', budget: 1, most: 1, nodes: ['cp'] },
    { name: 'workers', budget: 2, most: 2, nodes: ['w0', 'w1', 'w2', 'w3', 'w4'] },
  ],
  workloadsDown: [],
});
const clean = (): MissionFacts => ({
  acts: { cluster: true, reboot: true },
  expectedMachines: 6,
  toVersion: TO,
  cluster: cluster(),
  install: install(),
  reboot: reboot(),
  errors: [],
  elapsedMs: 195_000,
});

describe('the checked summary', () => {
  it('passes a clean run and says each fact', () => {
    const s = checkMission(clean());
    expect(s.problems).toEqual([]);
    expect(s.ok).toBe(true);
    const text = formatSummary(s, 'x.log');
    expect(text).toContain('machines Running: 6 of 6');
    expect(text).toContain('VCD calls made: 137 (31 writes, 22 tasks); per machine 6–6');
    expect(text).toContain('operators Available: 2 of 2 at 0.1.0');
    expect(text).toContain(`nodes rebooted once onto ${TO}: 6 of 6`);
    expect(text).toContain('workers: most disrupted at once 2, budget 2 (within budget)');
    expect(text).toContain(
      'control plane rolled v1.35.0 → v1.35.1: 1 of 1 machines replaced, at most 2 control-plane VMs at once; load balancer never without a healthy member of 400 samples, no VM going down in its pool: yes (1:01)',
    );
    expect(text).toContain('elapsed: 3:15');
    expect(text).toContain('result: OK');
  });

  it('fails a Machine not Running, a VM without VCD calls, a missing load balancer', () => {
    const f = clean();
    const c = f.cluster as ClusterFacts;
    c.machines[2] = { ...(c.machines[2] as MachineRow), phase: 'Provisioning', node: undefined };
    c.machines[3] = { ...(c.machines[3] as MachineRow), calls: 0 };
    c.loadBalancer = undefined;
    const s = checkMission(f);
    expect(s.ok).toBe(false);
    expect(s.problems).toContain('5 of 6 Machines Running with a Node (6 exist)');
    expect(s.problems).toContain('Machine w1: Provisioning, node none');
    expect(s.problems).toContain('Machine w2: no VCD call was made for its VM');
    expect(s.problems).toContain('the cluster has no load-balanced endpoint');
    expect(formatSummary(s, 'x.log')).toContain('result: FAILED');
  });

  it('fails a rollout that left an old machine, surged past one, or left the pool without a healthy member', () => {
    const f = clean();
    const c = f.cluster as ClusterFacts;
    c.rollout = {
      ...{ from: 'v1.35.0', to: 'v1.35.1', replicas: 3, replaced: 2, mostVms: 5, samples: 300 },
      ...{
        withoutHealthyMember: 4,
        membersDown: 2,
        firstMemberDown: '10.10.0.101 VM cp-0 status 8',
        elapsedMs: 1,
      },
    };
    expect(checkMission(f).problems).toEqual([
      'the rollout replaced 2 of 3 control-plane machines',
      'the rollout ran 5 control-plane VMs at once (maxSurge 1 allows 4)',
      'the load balancer had no healthy member in 4 samples during the rollout',
      'the pool held a VM going down: 10.10.0.101 VM cp-0 status 8',
    ]);
    c.rollout = undefined;
    expect(checkMission(f).problems).toEqual(['the control plane was not rolled']);
  });

  it('fails an operator not Available', () => {
    const f = clean();
    (f.install as InstallFacts).components[1] = {
      name: 'DaemonSet capstan-system/capstan-agent',
      desired: 6,
      updated: 6,
      available: 5,
      version: '0.1.0',
    };
    expect(checkMission(f).problems).toEqual(['DaemonSet capstan-system/capstan-agent: 5 of 6 available']);
  });

  it('fails a node rebooted twice, and a group over its budget', () => {
    const f = clean();
    const r = f.reboot as RebootFactsView;
    r.machines[1] = { name: 'w0', rebootRequests: 2, bootIDs: ['a', 'b', 'c'], versions: ['x', TO, TO] };
    r.groups[1] = { name: 'workers', budget: 2, most: 3, nodes: ['w0'] };
    const s = checkMission(f);
    expect(s.problems).toEqual([
      `w0: 2 reboot requests, 3 boots, now on ${TO}`,
      'workers: 3 nodes disrupted at once, budget 2',
    ]);
    expect(s.lines).toContain(`nodes rebooted once onto ${TO}: 5 of 6`);
    expect(s.lines).toContain('workers: most disrupted at once 3, budget 2 (OVER BUDGET)');
  });

  it('fails an act that did not finish, and checks only the acts asked for', () => {
    const unfinished = { ...clean(), errors: ['interrupted'] };
    delete unfinished.reboot;
    expect(checkMission(unfinished).problems).toEqual(['interrupted', 'act 3 (update) did not finish']);
    const clusterOnly = { ...clean(), acts: { cluster: true, reboot: false } };
    delete clusterOnly.install;
    delete clusterOnly.reboot;
    expect(checkMission(clusterOnly).ok).toBe(true);
    expect(checkMission(clusterOnly).lines.some((l) => l.startsWith('nodes rebooted'))).toBe(false);
  });

  it('property: a run passes exactly when every machine ran, the control plane rolled within maxSurge with the pool served, every node rebooted once onto the new version and every group kept its budget', () => {
    const run = fc.record({
      phases: fc.array(fc.constantFrom('Running', 'Provisioning', 'Failed'), { minLength: 6, maxLength: 6 }),
      reboots: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 6, maxLength: 6 }),
      onNew: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      budgets: fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })),
      most: fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 })),
      rollout: fc.record({
        replaced: fc.integer({ min: 0, max: 3 }),
        mostVms: fc.integer({ min: 3, max: 5 }),
        gaps: fc.nat(3),
      }),
    });
    fc.assert(
      fc.property(run, ({ phases, reboots, onNew, budgets, most, rollout }) => {
        const f = clean();
        const c = f.cluster as ClusterFacts;
        c.machines = c.machines.map((m, i) => ({ ...m, phase: phases[i] as string }));
        c.rollout = {
          ...{
            from: 'v1.35.0',
            to: 'v1.35.1',
            replicas: 3,
            replaced: rollout.replaced,
            mostVms: rollout.mostVms,
          },
          ...{ samples: 100, withoutHealthyMember: rollout.gaps, membersDown: 0, elapsedMs: 1 },
        };
        const r = f.reboot as RebootFactsView;
        r.machines = r.machines.map((m, i) => ({
          ...m,
          rebootRequests: reboots[i] as number,
          bootIDs: Array.from({ length: (reboots[i] as number) + 1 }, (_, k) => String(k)),
          versions: ['4459.2.0', onNew[i] ? TO : '4459.2.0'],
        }));
        r.groups = r.groups.map((g, i) => ({ ...g, budget: budgets[i] as number, most: most[i] as number }));
        const expected =
          phases.every((p) => p === 'Running') &&
          rollout.replaced === 3 &&
          rollout.mostVms <= 4 &&
          rollout.gaps === 0 &&
          reboots.every((n) => n === 1) &&
          onNew.every(Boolean) &&
          most.every((m, i) => m <= (budgets[i] as number));
        const s = checkMission(f);
        expect(s.ok).toBe(expected);
        expect(s.problems.length === 0).toBe(expected);
      }),
    );
  });
});
