/**
 * The load-balancer decision against a model of VCD's ALB: creates become tasks that take a tick,
 * may fail, and may be forgotten (lost status, `clusterctl move`); VCD refuses a second entity of
 * a name. Checked: never a create of what VCD shows, never a second pool or virtual service, members only of provisioned control-plane machines, convergence to Available
 * (or, deleting, to nothing left once the machines are gone).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLUSTER_WRITES, type ClusterStep, decideLoadBalancer } from '../src/decide/cluster.js';

interface Model {
  pools: { members: string[] }[];
  services: { vip: string }[];
  recordedVip?: string;
  vapp?: { empty: boolean; deployed: boolean };
  task?: { step: ClusterStep; fails: boolean };
  recorded: boolean;
  violations: string[];
  /** The gateway allocates from IP Spaces: the floating IPs reserved, and one a task just returned. */
  ipSpace?: { reservations: string[]; justReserved?: string; made: number };
}

const observe = (m: Model, deleting = false) => ({
  taskRunning: m.recorded && m.task !== undefined,
  ...(m.ipSpace ? { vipFromIpSpace: true } : {}),
  ...(m.ipSpace?.justReserved ? { reservedVip: m.ipSpace.justReserved } : {}),
  ...(deleting && m.recordedVip && m.ipSpace?.reservations.includes(m.recordedVip)
    ? { vipReservationHeld: true }
    : {}),
  ...(m.pools[0] ? { pool: { id: 'p', members: m.pools[0].members } } : {}),
  ...(m.services[0] ? { virtualService: { id: 'v', vip: m.services[0].vip, health: 'UP' } } : {}),
  ...(m.recordedVip ? { recordedVip: m.recordedVip } : {}),
  ...(m.vapp ? { vapp: { ...m.vapp, busy: m.task !== undefined } } : {}),
});

function issue(m: Model, step: ClusterStep, fails: boolean): void {
  if (step.kind === 'RecordVIP') {
    m.recordedVip = step.vip;
    return;
  }
  if (!CLUSTER_WRITES.has(step.kind)) return;
  // A create while VCD shows one is the decision's fault; a create while one whose task we lost
  // is still running is refused by VCD (the name is taken: DUPLICATE_NAME), so it makes nothing.
  if (step.kind === 'CreatePool' && m.pools.length > 0) m.violations.push('CreatePool while a pool exists');
  if (step.kind === 'CreateVirtualService' && m.services.length > 0)
    m.violations.push('CreateVirtualService while one exists');
  if (step.kind === 'CreateVirtualService' && m.ipSpace && !step.vip)
    m.violations.push('a VIP from uplink ranges on a gateway using IP Spaces');
  if (m.task) return; // VCD: BUSY_ENTITY or DUPLICATE_NAME, nothing started
  m.task = { step, fails };
  m.recorded = true;
}

function complete(m: Model): void {
  const t = m.task;
  m.task = undefined;
  if (!t || t.fails) return;
  const s = t.step;
  if (s.kind === 'CreatePool') m.pools.push({ members: [] });
  if (s.kind === 'CreateVirtualService') m.services.push({ vip: s.vip ?? '203.0.113.10' });
  if (s.kind === 'SetMembers' && m.pools[0]) m.pools[0].members = s.members;
  if (s.kind === 'DeleteVirtualService') m.services.shift();
  if (s.kind === 'DeletePool') m.pools.shift();
  if (s.kind === 'UndeployVApp' && m.vapp) m.vapp.deployed = false;
  if (s.kind === 'DeleteVApp') m.vapp = undefined;
  if (s.kind === 'ReserveVIP' && m.ipSpace) {
    const ip = `198.51.100.${++m.ipSpace.made}`;
    m.ipSpace.reservations.push(ip);
    if (m.recorded) m.ipSpace.justReserved = ip; // the next turn reads the task's result
  }
  if (s.kind === 'ReleaseVIP' && m.ipSpace)
    m.ipSpace.reservations = m.ipSpace.reservations.filter((ip) => ip !== m.recordedVip);
}

type Ev = 'reconcile' | 'tick' | 'fail' | 'lose' | 'cp-up' | 'delete' | 'machine-gone';
const evs = fc.array(
  fc.constantFrom<Ev>('reconcile', 'reconcile', 'tick', 'fail', 'lose', 'cp-up', 'delete', 'machine-gone'),
  {
    maxLength: 100,
  },
);

describe('decideLoadBalancer against a model of the ALB', () => {
  it('never makes a second pool or virtual service, and converges', () => {
    fc.assert(
      fc.property(evs, fc.boolean(), fc.boolean(), (events, withVApp, ipSpace) => {
        const m: Model = {
          pools: [],
          services: [],
          recorded: false,
          violations: [],
          ...(withVApp ? { vapp: { empty: true, deployed: true } } : {}),
          ...(ipSpace ? { ipSpace: { reservations: [], made: 0 } } : {}),
        };
        let deleting = false;
        let machines = 3;
        let provisionedCps: string[] = [];
        let failNext = false;
        const reconcile = () => {
          const step = decideLoadBalancer(
            { members: provisionedCps, deleting, machinesLeft: machines },
            observe(m, deleting),
          );
          if (m.ipSpace) delete m.ipSpace.justReserved; // a task's result is read in one turn only
          if (step.kind === 'SetMembers' && step.members.some((ip) => !provisionedCps.includes(ip)))
            m.violations.push('member that is not a provisioned control plane');
          if (!m.task) m.recorded = false;
          issue(m, step, failNext);
          failNext = false;
          return step;
        };
        for (const e of events) {
          if (e === 'reconcile') reconcile();
          else if (e === 'tick') complete(m);
          else if (e === 'fail') failNext = true;
          else if (e === 'lose') {
            m.recorded = false;
            if (m.ipSpace) delete m.ipSpace.justReserved;
          } else if (e === 'cp-up')
            provisionedCps = [...new Set([...provisionedCps, `10.0.0.${provisionedCps.length + 1}`])];
          else if (e === 'delete') deleting = true;
          else if (deleting && machines > 0) machines--;
        }
        if (deleting) machines = 0;
        let last: ClusterStep = { kind: 'WaitForTask' };
        for (let i = 0; i < 40; i++) {
          last = reconcile();
          complete(m);
        }
        expect(m.violations).toEqual([]);
        expect(m.pools.length).toBeLessThanOrEqual(1);
        expect(m.services.length).toBeLessThanOrEqual(1);
        if (deleting) {
          expect(last).toEqual({ kind: 'Deleted' });
          expect(m.pools).toEqual([]);
          expect(m.services).toEqual([]);
          expect(m.vapp).toBeUndefined();
          // The floating IP the cluster reserved and used is released (one whose result was lost is not).
          if (m.recordedVip) expect(m.ipSpace?.reservations ?? []).not.toContain(m.recordedVip);
        } else {
          expect(last.kind).toBe('Available');
          expect(m.recordedVip).toBe(m.services[0]?.vip);
          if (m.ipSpace) expect(m.ipSpace.reservations).toContain(m.recordedVip);
          expect([...(m.pools[0]?.members ?? [])].sort()).toEqual([...provisionedCps].sort());
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('waits for every machine before deleting anything', () => {
    const seen = {
      taskRunning: false,
      pool: { id: 'p', members: [] },
      virtualService: { id: 'v', vip: '1.2.3.4', health: 'UP' },
    };
    expect(decideLoadBalancer({ members: [], deleting: true, machinesLeft: 2 }, seen)).toEqual({
      kind: 'WaitForMachines',
      left: 2,
    });
    expect(decideLoadBalancer({ members: [], deleting: true, machinesLeft: 0 }, seen)).toEqual({
      kind: 'DeleteVirtualService',
    });
  });

  it('adopts what a moved cluster finds: existing pool and service, VIP recorded from the service', () => {
    const seen = {
      taskRunning: false,
      pool: { id: 'p', members: [] },
      virtualService: { id: 'v', vip: '203.0.113.12', health: 'DOWN' },
    };
    expect(decideLoadBalancer({ members: [], deleting: false, machinesLeft: 0 }, seen)).toEqual({
      kind: 'RecordVIP',
      vip: '203.0.113.12',
    });
    expect(
      decideLoadBalancer(
        { members: [], deleting: false, machinesLeft: 0 },
        { ...seen, recordedVip: '203.0.113.12' },
      ),
    ).toEqual({
      kind: 'Available',
      vip: '203.0.113.12',
      health: 'DOWN',
    });
  });

  it('a VIP asked for in spec is the one the virtual service is made with; a host without a port is recorded again', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.boolean(), (vip, portMissing) => {
        const intent = { members: [], deleting: false, machinesLeft: 0 };
        const pool = { id: 'p', members: [] };
        expect(
          decideLoadBalancer(intent, { taskRunning: false, pool, recordedVip: vip, portMissing }),
        ).toEqual({
          kind: 'CreateVirtualService',
          vip,
        });
        const made = {
          taskRunning: false,
          pool,
          virtualService: { id: 'v', vip, health: 'UP' },
          recordedVip: vip,
        };
        expect(decideLoadBalancer(intent, { ...made, portMissing }).kind).toBe(
          portMissing ? 'RecordVIP' : 'Available',
        );
      }),
    );
  });
});
