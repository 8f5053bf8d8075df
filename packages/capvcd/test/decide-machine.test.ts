/**
 * The VCDMachine decision driven against a small model of VCD: writes become tasks that take a
 * few ticks, fail at random, and can be forgotten by the provider (a lost status, a restart, a
 * move). Checked: never two VMs for one machine, never a write to a VM that is not ours, and
 * convergence (provisioned, or everything of ours gone) once the faults stop.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideMachine,
  type MachineIntent,
  type MachineStep,
  type ObservedVM,
  releasableWithoutVcd,
  VmStatus,
  WRITES,
} from '../src/decide/machine.js';

const intent = (deleting: boolean): MachineIntent => ({
  vmName: 'm1',
  vappMarker: 'capvcd cluster ns/c1',
  vmMarker: 'capvcd machine ns/m1',
  guestinfo: { 'guestinfo.userdata': 'dXNlcmRhdGE=', 'guestinfo.userdata.encoding': 'base64' },
  deleting,
});

interface ModelVM extends ObservedVM {
  foreign: boolean;
}
interface Task {
  step: MachineStep['kind'];
  ticks: number;
  fails: boolean;
}
interface Model {
  vapp?: { deployed: boolean; description: string; vms: ModelVM[] };
  tasks: Task[];
  /** The provider still knows its task (status not lost). */
  recorded: boolean;
  violations: string[];
  creates: number;
}

/** What the provider sees. */
function observe(m: Model) {
  if (!m.vapp) return { taskRunning: m.recorded && m.tasks.length > 0 };
  const busyVm = new Set(
    m.tasks.filter((t) => t.step !== 'CreateVM' && t.step !== 'CreateVApp').map(() => 'm1'),
  );
  return {
    taskRunning: m.recorded && m.tasks.length > 0,
    vapp: {
      deployed: m.vapp.deployed,
      description: m.vapp.description,
      busy: m.tasks.length > 0,
      vms: m.vapp.vms.map((v) => ({ ...v, busy: !v.foreign && busyVm.has(v.name) })),
    },
  };
}

const ours = (m: Model) => m.vapp?.vms.find((v) => v.name === 'm1' && !v.foreign);

/** The provider issues `step`; the model checks it and starts its task. */
function issue(m: Model, step: MachineStep, fails: boolean, ticks: number): void {
  if (!WRITES.has(step.kind)) return;
  const mine = ours(m);
  const named = m.vapp?.vms.filter((v) => v.name === 'm1') ?? [];
  if (step.kind === 'CreateVM') {
    if (named.length > 0) m.violations.push('CreateVM while a VM of that name exists');
    if (m.tasks.some((t) => t.step === 'CreateVM')) m.violations.push('CreateVM while a create runs');
  }
  if (['PowerOff', 'UndeployVM', 'DeleteVM', 'ConfigureVM', 'PowerOn'].includes(step.kind) && !mine) {
    m.violations.push(`${step.kind} without a VM of ours`);
  }
  // VCD refuses a second operation on a busy entity (BUSY_ENTITY): no task is made.
  if (m.tasks.length > 0) return;
  m.tasks.push({ step: step.kind, ticks, fails });
  m.recorded = true;
}

/** VCD finishes the oldest task. */
function complete(m: Model, config: Record<string, string>): void {
  const task = m.tasks.shift();
  if (!task) return;
  if (task.fails) return;
  const vm = ours(m);
  switch (task.step) {
    case 'CreateVApp':
      m.vapp ??= { deployed: false, description: intent(false).vappMarker, vms: [] };
      return;
    case 'CreateVM':
      m.creates++;
      m.vapp?.vms.push({
        name: 'm1',
        status: VmStatus.PoweredOff,
        deployed: false,
        busy: false,
        description: intent(false).vmMarker,
        extraConfig: {},
        foreign: false,
      });
      return;
    case 'ConfigureVM':
      if (vm) vm.extraConfig = { ...config };
      return;
    case 'PowerOn':
      if (vm) Object.assign(vm, { status: VmStatus.PoweredOn, deployed: true, ip: '10.0.0.5' });
      return;
    case 'PowerOff':
      if (vm) Object.assign(vm, { status: VmStatus.PoweredOff, ip: undefined });
      return;
    case 'UndeployVM':
      if (vm) Object.assign(vm, { deployed: false, status: VmStatus.PoweredOff, ip: undefined });
      return;
    case 'DeleteVM':
      if (m.vapp && vm) m.vapp.vms = m.vapp.vms.filter((v) => v !== vm);
      return;
    case 'UndeployVApp':
      if (m.vapp) m.vapp.deployed = false;
      return;
    case 'DeleteVApp':
      if (m.vapp && m.vapp.vms.length === 0) m.vapp = undefined;
      return;
  }
}

type Event = 'reconcile' | 'tick' | 'fail-next' | 'lose-status' | 'delete';
const events = fc.array(
  fc.constantFrom<Event>('reconcile', 'reconcile', 'tick', 'tick', 'fail-next', 'lose-status', 'delete'),
  { maxLength: 120 },
);

function run(evs: Event[], foreignNeighbour: boolean) {
  const m: Model = { tasks: [], recorded: false, violations: [], creates: 0 };
  if (foreignNeighbour) {
    m.vapp = { deployed: true, description: intent(false).vappMarker, vms: [] };
    m.vapp.vms.push({
      name: 'other',
      status: VmStatus.PoweredOn,
      deployed: true,
      busy: false,
      description: 'someone else',
      extraConfig: {},
      foreign: true,
    });
  }
  let deleting = false;
  let failNext = false;
  const reconcile = () => {
    const step = decideMachine(intent(deleting), observe(m));
    if (!m.recorded || m.tasks.length === 0) m.recorded = false;
    issue(m, step, failNext, 1);
    failNext = false;
    return step;
  };
  for (const e of evs) {
    if (e === 'reconcile') reconcile();
    else if (e === 'tick') complete(m, intent(false).guestinfo);
    else if (e === 'fail-next') failNext = true;
    else if (e === 'lose-status') m.recorded = false;
    else deleting = true;
  }
  // Faults stop: reconcile and let VCD finish, until the decision rests.
  let last: MachineStep = { kind: 'WaitForTask' };
  for (let i = 0; i < 60; i++) {
    last = reconcile();
    complete(m, intent(false).guestinfo);
  }
  return { m, last, deleting };
}

describe('decideMachine against a model of VCD', () => {
  it('never makes two VMs, never writes to a VM that is not ours, and converges', () => {
    fc.assert(
      fc.property(events, fc.boolean(), (evs, neighbour) => {
        const { m, last, deleting } = run(evs, neighbour);
        expect(m.violations).toEqual([]);
        expect(m.vapp?.vms.filter((v) => v.name === 'm1').length ?? 0).toBeLessThanOrEqual(1);
        expect(m.vapp?.vms.some((v) => v.foreign) ?? false).toBe(neighbour);
        if (deleting) {
          expect(last.kind).toBe('Deleted');
          expect(ours(m)).toBeUndefined();
          if (!neighbour) expect(m.vapp).toBeUndefined();
        } else {
          expect(last.kind).toBe('Provisioned');
          expect(ours(m)?.extraConfig).toEqual(intent(false).guestinfo);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('waits for a recorded task without looking further', () => {
    expect(decideMachine(intent(false), { taskRunning: true })).toEqual({ kind: 'WaitForTask' });
    expect(decideMachine(intent(true), { taskRunning: true })).toEqual({ kind: 'WaitForTask' });
  });

  it('refuses a VM of its name that carries another marker, and never deletes it', () => {
    const vapp = {
      deployed: true,
      busy: false,
      description: intent(false).vappMarker,
      vms: [
        {
          name: 'm1',
          status: VmStatus.PoweredOn,
          deployed: true,
          busy: false,
          description: 'not ours',
          extraConfig: {},
        },
      ],
    };
    expect(decideMachine(intent(false), { taskRunning: false, vapp }).kind).toBe('Blocked');
    expect(decideMachine(intent(true), { taskRunning: false, vapp })).toEqual({ kind: 'Deleted' });
  });

  it('leaves a vApp it did not create alone, whether provisioning or deleting', () => {
    const vapp = { deployed: false, busy: false, description: 'another tool', vms: [] };
    expect(decideMachine(intent(false), { taskRunning: false, vapp })).toMatchObject({
      reason: 'VAppNameInUse',
    });
    expect(decideMachine(intent(true), { taskRunning: false, vapp })).toEqual({ kind: 'Deleted' });
  });

  it('does not create while a task of unknown origin runs on the vApp (a create whose href was lost)', () => {
    const vapp = { deployed: false, busy: true, description: intent(false).vappMarker, vms: [] };
    expect(decideMachine(intent(false), { taskRunning: false, vapp })).toMatchObject({ kind: 'WaitForVCD' });
  });

  it('property: a deleting VM in the load balancer pool is never powered off; out of it, it is', () => {
    const status = fc.constantFrom(VmStatus.PoweredOn, VmStatus.PoweredOff, VmStatus.Resolved);
    fc.assert(
      fc.property(status, fc.boolean(), fc.boolean(), (vmStatus, inPool, deployed) => {
        const vm = { name: 'm1', status: vmStatus, deployed, busy: false, extraConfig: {}, ip: '10.0.0.5' };
        const vapp = {
          deployed: true,
          busy: false,
          description: intent(true).vappMarker,
          vms: [{ ...vm, description: intent(true).vmMarker }],
        };
        const step = decideMachine({ ...intent(true), inLoadBalancer: inPool }, { taskRunning: false, vapp });
        if (vmStatus === VmStatus.PoweredOn)
          expect(step).toMatchObject(
            inPool ? { kind: 'WaitForVCD', reason: 'LoadBalancerMember' } : { kind: 'PowerOff' },
          );
        else expect(step.kind).not.toBe('PowerOff');
      }),
    );
  });

  it('property: a deleting VM in an anti-affinity rule is never deleted; out of it, it is once off', () => {
    const status = fc.constantFrom(VmStatus.PoweredOn, VmStatus.PoweredOff, VmStatus.Resolved);
    fc.assert(
      fc.property(status, fc.boolean(), fc.boolean(), (vmStatus, inRule, deployed) => {
        const vm = { name: 'm1', status: vmStatus, deployed, busy: false, extraConfig: {} };
        const vapp = {
          deployed: true,
          busy: false,
          description: intent(true).vappMarker,
          vms: [{ ...vm, description: intent(true).vmMarker }],
        };
        const step = decideMachine({ ...intent(true), inAffinityRule: inRule }, { taskRunning: false, vapp });
        if (inRule) expect(step.kind).not.toBe('DeleteVM');
        const off = vmStatus !== VmStatus.PoweredOn && !deployed;
        if (off)
          expect(step).toMatchObject(
            inRule ? { kind: 'WaitForVCD', reason: 'AffinityRuleMember' } : { kind: 'DeleteVM' },
          );
      }),
    );
  });

  it('releases an unplaceable machine without VCD only when it never asked VCD for a VM', () => {
    const trace = fc.record(
      {
        vmName: fc.constantFrom('m1', ''),
        task: fc.record({ href: fc.webUrl(), operation: fc.constantFrom('CreateVM', 'PowerOn') }),
        providerID: fc.constantFrom('vmware-cloud-director://urn:vcloud:vm:1', ''),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(trace, (t) => {
        const traceLeft = t.vmName !== undefined || t.task !== undefined || Boolean(t.providerID);
        expect(releasableWithoutVcd(t)).toBe(!traceLeft);
      }),
    );
    expect(releasableWithoutVcd({})).toBe(true);
    expect(releasableWithoutVcd({ vmName: 'm1' })).toBe(false);
  });
});
