import { fluoProtocol } from '@capstan/reboot-protocol';
import { describe, expect, it } from 'vitest';
import { applyWrites, type NodeSnapshot, type PlanInput, plan } from '../../src/index.js';
import { A, asking, byName, countsOracle, group, K, L, MINUTE, NOW, node, ts, writeFor } from './fixtures.js';

/** Plans and applies, returning the new nodes and the plan. */
function step(input: PlanInput): { nodes: NodeSnapshot[]; result: ReturnType<typeof plan> } {
  const result = plan(input);
  return { nodes: applyWrites(input.nodes, result.writes), result };
}

describe('requests', () => {
  it('stamps the request time the first time a node asks, and grants a lone node at once', () => {
    const { nodes, result } = step({ nodes: [asking('n1')], groups: [], now: NOW });
    const n1 = byName(nodes, 'n1');
    expect(n1.annotations[K.requestedAt]).toBeUndefined(); // cleared again by the grant
    expect(n1.annotations[A.rebootOk]).toBe('true');
    expect(n1.annotations[K.grantedBootId]).toBe('n1-boot-1');
    expect(n1.annotations[K.grantedAt]).toBe(ts(NOW));
    expect(writeFor(result.writes, 'n1')?.actions).toEqual(['Requested', 'Scheduled', 'Granted']);
  });

  it('does nothing for a node that does not ask', () => {
    expect(plan({ nodes: [node('n1')], groups: [], now: NOW }).writes).toEqual([]);
  });

  it('does not schedule a paused node, and forgets its request time', () => {
    const paused = asking('n1', {
      annotations: { [A.rebootPaused]: 'true', [K.requestedAt]: ts(NOW - MINUTE) },
    });
    const { nodes } = step({ nodes: [paused], groups: [], now: NOW });
    expect(byName(nodes, 'n1').annotations[A.rebootOk]).toBeUndefined();
    expect(byName(nodes, 'n1').annotations[K.requestedAt]).toBeUndefined();
  });

  it('does not schedule nodes of a paused group', () => {
    const r = plan({ nodes: [asking('n1')], groups: [group('g', { paused: true })], now: NOW });
    expect(r.writes.every((w) => !w.setAnnotations[A.rebootOk] && !w.setLabels[L.beforeReboot])).toBe(true);
    expect(r.groupStatus.g?.queue).toMatchObject([{ node: 'n1', reason: 'GroupPaused' }]);
  });
});

describe('budget', () => {
  it('grants at most maxUnavailable nodes, counting nodes already unavailable', () => {
    const nodes = [
      asking('n1'),
      asking('n2'),
      asking('n3'),
      node('down', { conditions: { Ready: 'False' } }),
    ];
    const r = plan({ nodes, groups: [group('g', { maxUnavailable: 2 })], now: NOW });
    const granted = r.writes.filter((w) => w.setAnnotations[A.rebootOk] === 'true').map((w) => w.node);
    expect(granted).toEqual(['n1']);
    expect(r.groupStatus.g).toMatchObject({
      nodes: 4,
      asking: 3,
      inFlight: 1,
      unavailable: 2,
      maxUnavailable: 2,
    });
    expect(r.groupStatus.g?.queue.map((q) => [q.node, q.reason])).toEqual([
      ['n2', 'BudgetExhausted'],
      ['n3', 'BudgetExhausted'],
    ]);
  });

  it('rounds a percentage down but never below one', () => {
    const nodes = ['a', 'b', 'c'].map((n) => asking(n));
    const r = plan({ nodes, groups: [group('g', { maxUnavailable: '50%' })], now: NOW });
    expect(r.groupStatus.g?.maxUnavailable).toBe(1);
    expect(r.writes.filter((w) => w.setAnnotations[A.rebootOk]).length).toBe(1);
  });

  it('orders budget-taking writes last, so any prefix of the plan keeps the budget', () => {
    // n1 comes back (frees its slot) and n2 takes it in the same plan.
    const n1 = node('n1', {
      bootID: 'n1-boot-2',
      annotations: { [K.grantedAt]: ts(NOW - 10 * MINUTE), [K.grantedBootId]: 'n1-boot-1' },
    });
    const r = plan({ nodes: [n1, asking('n2')], groups: [], now: NOW });
    expect(r.writes.map((w) => [w.node, w.consumesBudget])).toEqual([
      ['n1', false],
      ['n2', true],
    ]);
  });

  it('counts cordoned, disk-pressure and network-unavailable nodes', () => {
    const nodes = [
      asking('n1'),
      node('c', { unschedulable: true }),
      node('d', { conditions: { Ready: 'True', DiskPressure: 'True' } }),
      node('e', { conditions: { Ready: 'True', NetworkUnavailable: 'True' } }),
    ];
    const r = plan({ nodes, groups: [group('g', { maxUnavailable: 3 })], now: NOW });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk])).toBe(false);
    expect(r.groupStatus.g?.unavailable).toBe(3);
  });
});

describe('hooks', () => {
  const g = group('g', { beforeRebootAnnotations: ['x/drained'], afterRebootAnnotations: ['x/checked'] });

  it('schedules with the before-reboot label and grants only when every before annotation is "true"', () => {
    let s = step({ nodes: [asking('n1', { annotations: { 'x/drained': 'true' } })], groups: [g], now: NOW });
    let n1 = byName(s.nodes, 'n1');
    expect(n1.labels[L.beforeReboot]).toBe('true');
    expect(n1.annotations['x/drained']).toBeUndefined(); // a stale answer from an earlier cycle is cleared
    expect(n1.annotations[A.rebootOk]).toBeUndefined();
    expect(s.result.groupStatus.g?.queue[0]?.reason).toBe('WaitingForBeforeRebootAnnotations');

    s = step({
      nodes: [{ ...n1, annotations: { ...n1.annotations, 'x/drained': 'yes' } }],
      groups: [g],
      now: NOW,
    });
    expect(byName(s.nodes, 'n1').annotations[A.rebootOk]).toBeUndefined();

    s = step({
      nodes: [{ ...n1, annotations: { ...n1.annotations, 'x/drained': 'true' } }],
      groups: [g],
      now: NOW,
    });
    n1 = byName(s.nodes, 'n1');
    expect(n1.annotations[A.rebootOk]).toBe('true');
    expect(n1.labels[L.beforeReboot]).toBeUndefined();
  });

  it('revokes a scheduled node that stops asking: label and hook annotations removed, never granted', () => {
    const scheduled = node('n1', {
      labels: { [L.beforeReboot]: 'true' },
      annotations: { [A.rebootNeeded]: 'false', 'x/drained': 'true', [K.requestedAt]: ts(NOW - MINUTE) },
    });
    const { nodes, result } = step({ nodes: [scheduled], groups: [g], now: NOW });
    const n1 = byName(nodes, 'n1');
    expect(n1.labels[L.beforeReboot]).toBeUndefined();
    expect(n1.annotations['x/drained']).toBeUndefined();
    expect(n1.annotations[K.requestedAt]).toBeUndefined();
    expect(n1.annotations[A.rebootOk]).toBeUndefined();
    expect(writeFor(result.writes, 'n1')?.actions).toEqual(['Revoked']);
  });

  it('holds the after-reboot label until every after annotation is "true", then releases', () => {
    const rebooted = node('n1', {
      bootID: 'n1-boot-2',
      unschedulable: true,
      annotations: {
        [A.rebootOk]: 'true',
        [A.rebootNeeded]: 'false',
        [A.agentMadeUnschedulable]: 'true',
        [K.grantedAt]: ts(NOW - 5 * MINUTE),
        [K.grantedBootId]: 'n1-boot-1',
      },
    });
    let s = step({ nodes: [rebooted], groups: [g], now: NOW });
    let n1 = byName(s.nodes, 'n1');
    expect(n1.labels[L.afterReboot]).toBe('true');
    expect(n1.annotations[A.rebootOk]).toBe('true');

    s = step({
      nodes: [{ ...n1, annotations: { ...n1.annotations, 'x/checked': 'true' } }],
      groups: [g],
      now: NOW,
    });
    n1 = byName(s.nodes, 'n1');
    expect(n1.labels[L.afterReboot]).toBeUndefined();
    expect(n1.annotations[A.rebootOk]).toBeUndefined();
    expect(n1.annotations['x/checked']).toBeUndefined();
    expect(n1.annotations[K.grantedAt]).toBeDefined(); // still cordoned: still in flight
    expect(countsOracle(n1)).toBe(true);

    // The agent uncordons; the cycle completes.
    s = step({ nodes: [{ ...n1, unschedulable: false }], groups: [g], now: NOW });
    n1 = byName(s.nodes, 'n1');
    expect(n1.annotations[K.grantedAt]).toBeUndefined();
    expect(n1.annotations[K.grantedBootId]).toBeUndefined();
    expect(n1.annotations[K.rebootedAt]).toBe(ts(NOW));
    expect(s.result.groupStatus.g).toMatchObject({ rebooted: 1, inFlight: 0 });
  });
});

describe('verification (boot ID fencing)', () => {
  const granted = (over: Partial<NodeSnapshot>): NodeSnapshot =>
    node('n1', {
      ...over,
      annotations: {
        [A.rebootOk]: 'true',
        [K.grantedAt]: ts(NOW - 5 * MINUTE),
        [K.grantedBootId]: 'n1-boot-1',
        ...over.annotations,
      },
    });

  it('does not release a node whose boot ID did not change', () => {
    const r = plan({
      nodes: [granted({ annotations: { [A.rebootNeeded]: 'false' } })],
      groups: [],
      now: NOW,
    });
    expect(r.writes).toEqual([]);
  });

  it('does not release a node still NotReady, in progress or still needing a reboot', () => {
    for (const over of [
      { bootID: 'n1-boot-2', conditions: { Ready: 'False' as const } },
      { bootID: 'n1-boot-2', annotations: { [A.rebootInProgress]: 'true' } },
      { bootID: 'n1-boot-2', annotations: { [A.rebootNeeded]: 'true' } },
    ]) {
      expect(plan({ nodes: [granted(over)], groups: [], now: NOW }).writes).toEqual([]);
    }
  });

  it('releases and completes in one plan a node that rebooted and is back, with no hooks', () => {
    const { nodes, result } = step({ nodes: [granted({ bootID: 'n1-boot-2' })], groups: [], now: NOW });
    expect(writeFor(result.writes, 'n1')?.actions).toEqual(['RebootVerified', 'Released', 'Completed']);
    expect(countsOracle(byName(nodes, 'n1'))).toBe(false);
  });
});

describe('timeouts', () => {
  const stale = node('n1', {
    annotations: {
      [A.rebootOk]: 'true',
      [A.rebootNeeded]: 'true',
      [K.grantedAt]: ts(NOW - 31 * MINUTE),
      [K.grantedBootId]: 'n1-boot-1',
    },
  });

  it('marks a grant not acted upon as failed, keeps it counting and halts the group', () => {
    const { nodes, result } = step({
      nodes: [stale, asking('n2')],
      groups: [group('g', { maxUnavailable: 5 })],
      now: NOW,
    });
    const n1 = byName(nodes, 'n1');
    expect(n1.annotations[K.failed]).toBe(`GrantNotActedOn ${ts(NOW)}`);
    expect(n1.annotations[A.rebootOk]).toBe('true');
    expect(countsOracle(n1)).toBe(true);
    expect(byName(nodes, 'n2').annotations[A.rebootOk]).toBeUndefined();
    expect(result.findings.map((f) => f.kind)).toContain('GrantTimedOut');
    expect(result.groupStatus.g?.queue).toMatchObject([{ node: 'n2', reason: 'GroupHalted' }]);
    expect(result.groupStatus.g?.conditions.find((c) => c.type === 'Halted')?.status).toBe('True');
  });

  it('calls it RebootNotVerified once the agent acted', () => {
    const acting = {
      ...stale,
      unschedulable: true,
      annotations: { ...stale.annotations, [A.rebootInProgress]: 'true' },
    };
    const { nodes } = step({ nodes: [acting], groups: [], now: NOW });
    expect(byName(nodes, 'n1').annotations[K.failed]).toMatch(/^RebootNotVerified /);
  });

  it('honours the group grant timeout', () => {
    const r = plan({ nodes: [stale], groups: [group('g', { grantTimeout: '1h' })], now: NOW });
    expect(r.writes).toEqual([]);
  });

  it('resumes the group once an admin removes the failure marker of a completed node', () => {
    const done = node('n1', {
      annotations: { [K.failed]: 'RebootNotVerified x', [K.rebootedAt]: ts(NOW - MINUTE) },
    });
    expect(
      plan({ nodes: [done, asking('n2')], groups: [], now: NOW }).writes.some(
        (w) => w.setAnnotations[A.rebootOk],
      ),
    ).toBe(false);
    const cleared = { ...done, annotations: { [K.rebootedAt]: ts(NOW - MINUTE) } };
    const r = plan({ nodes: [cleared, asking('n2')], groups: [], now: NOW });
    expect(writeFor(r.writes, 'n2')?.setAnnotations[A.rebootOk]).toBe('true');
  });
});

describe('order and groups', () => {
  const cp = group('control-plane', {
    nodeSelector: { matchLabels: { role: 'cp' } },
    order: 0,
    maxUnavailable: 1,
  });
  const workers = group('workers', {
    nodeSelector: { matchLabels: { role: 'worker' } },
    order: 10,
    maxUnavailable: 2,
  });

  it('lets a group grant only when lower-order groups have nobody asking or in flight', () => {
    const nodes = [
      asking('cp1', { labels: { role: 'cp' } }),
      asking('cp2', { labels: { role: 'cp' } }),
      asking('w1', { labels: { role: 'worker' } }),
    ];
    const r = plan({ nodes, groups: [workers, cp], now: NOW });
    expect(r.writes.filter((w) => w.setAnnotations[A.rebootOk]).map((w) => w.node)).toEqual(['cp1']);
    expect(r.groupStatus.workers?.queue[0]?.reason).toBe('WaitingForLowerOrder');
    expect(r.groupStatus['control-plane']?.queue[0]).toMatchObject({
      node: 'cp2',
      reason: 'BudgetExhausted',
    });
  });

  it('puts unmatched nodes in the default group, and reports nodes matched twice', () => {
    const nodes = [node('x'), node('both', { labels: { role: 'cp', pool: 'p' } })];
    const other = group('pool', { nodeSelector: { matchLabels: { pool: 'p' } }, order: 5 });
    const r = plan({ nodes, groups: [cp, other], now: NOW });
    expect(r.membership).toEqual({ x: 'default', both: 'control-plane' });
    expect(r.findings.map((f) => f.kind)).toContain('NodeInSeveralGroups');
    expect(r.groupStatus.default?.nodes).toBe(1);
    const twice = r.findings.filter((f) => f.kind === 'NodeInSeveralGroups');
    expect(twice.map((f) => f.node)).toEqual(['both']);
  });

  it('does not count the default group as a second match for nodes another group selects', () => {
    const nodes = [node('c', { labels: { role: 'cp' } }), node('x')];
    const r = plan({ nodes, groups: [cp], now: NOW });
    expect(r.membership).toEqual({ c: 'control-plane', x: 'default' });
    expect(r.findings.filter((f) => f.kind === 'NodeInSeveralGroups')).toEqual([]);
  });

  it('uses a RebootGroup named like the default group as the default policy', () => {
    const r = plan({
      nodes: [asking('a'), asking('b')],
      groups: [group('default', { nodeSelector: { matchLabels: { none: 'x' } }, maxUnavailable: 2 })],
      now: NOW,
    });
    expect(r.writes.filter((w) => w.setAnnotations[A.rebootOk]).length).toBe(2);
  });

  it('holds an invalid group and reports why', () => {
    const bad = group('bad', { windows: [{ start: '01:00', end: '01:00', timeZone: 'Mars/Olympus' }] });
    const r = plan({ nodes: [asking('a')], groups: [bad], now: NOW });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk])).toBe(false);
    expect(r.groupStatus.bad?.conditions.find((c) => c.type === 'Valid')).toMatchObject({ status: 'False' });
    expect(r.findings.find((f) => f.kind === 'InvalidGroup')?.message).toMatch(/Mars\/Olympus/);
  });

  it('holds the default group when a selector is unusable (membership unknown)', () => {
    const bad = group('bad', {
      nodeSelector: { matchExpressions: [{ key: 'k', operator: 'In', values: [] }] },
    });
    const r = plan({ nodes: [asking('a')], groups: [bad], now: NOW });
    expect(r.membership.a).toBe('default');
    expect(r.groupStatus.default?.queue[0]?.reason).toBe('InvalidGroup');
  });
});

describe('windows', () => {
  // Every day 22:00 to 02:00 in Berlin (UTC+1 in January).
  const night = group('g', { windows: [{ start: '22:00', end: '02:00', timeZone: 'Europe/Berlin' }] });

  it('schedules nothing outside the window, but lets an in-flight node finish', () => {
    const r = plan({ nodes: [asking('a')], groups: [night], now: NOW });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk])).toBe(false);
    expect(r.groupStatus.g).toMatchObject({
      windowOpen: false,
      queue: [{ node: 'a', reason: 'OutsideWindow' }],
    });
    const back = node('b', {
      bootID: 'b-2',
      annotations: { [A.rebootOk]: 'true', [K.grantedAt]: ts(NOW - MINUTE), [K.grantedBootId]: 'b-1' },
    });
    const r2 = plan({ nodes: [back], groups: [night], now: NOW });
    expect(writeFor(r2.writes, 'b')?.actions).toContain('Completed');
  });

  it('grants inside a window that crosses midnight', () => {
    const at = Date.UTC(2025, 0, 6, 23, 30); // 00:30 Tuesday in Berlin
    const r = plan({ nodes: [asking('a')], groups: [night], now: at });
    expect(writeFor(r.writes, 'a')?.setAnnotations[A.rebootOk]).toBe('true');
  });
});

describe('FLUO compatibility', () => {
  it('speaks FLUO keys and withdraws reboot-ok by writing "false"', () => {
    const f = fluoProtocol.annotations;
    const granted = node('n1', {
      bootID: 'n1-boot-2',
      annotations: {
        [f.rebootOk]: 'true',
        [f.rebootNeeded]: 'false',
        [f.rebootInProgress]: 'false',
        [K.grantedAt]: ts(NOW - MINUTE),
        [K.grantedBootId]: 'n1-boot-1',
      },
    });
    const r = plan({ nodes: [granted], groups: [], now: NOW, options: { protocol: fluoProtocol } });
    const w = writeFor(r.writes, 'n1');
    expect(w?.setAnnotations[f.rebootOk]).toBe('false');
    expect(w?.removeAnnotations).not.toContain(f.rebootOk);
    expect(f.rebootOk).toBe('flatcar-linux-update.v1.flatcar-linux.net/reboot-ok');
  });

  it('grants a FLUO agent with FLUO keys; our bookkeeping stays under our prefix', () => {
    const f = fluoProtocol.annotations;
    const n = node('n1', { annotations: { [f.rebootNeeded]: 'true', [f.rebootOk]: 'false' } });
    const w = writeFor(
      plan({ nodes: [n], groups: [], now: NOW, options: { protocol: fluoProtocol } }).writes,
      'n1',
    );
    expect(w?.setAnnotations[f.rebootOk]).toBe('true');
    for (const key of Object.keys(w?.setAnnotations ?? {})) {
      expect(key === f.rebootOk || key.startsWith('reboot.capstan.dev/')).toBe(true);
    }
  });
});

describe('garbage', () => {
  it('reads garbage as unset, reports it and cleans our own keys', () => {
    const n = node('n1', {
      labels: { [L.beforeReboot]: 'maybe' },
      annotations: { [A.rebootNeeded]: 'TRUE', [A.rebootOk]: 'yes', [K.requestedAt]: '-5' },
    });
    const r = plan({ nodes: [n], groups: [], now: NOW });
    const w = writeFor(r.writes, 'n1');
    expect(w?.removeAnnotations.sort()).toEqual([A.rebootOk, K.requestedAt].sort());
    expect(w?.removeLabels).toEqual([L.beforeReboot]);
    expect(
      r.findings
        .filter((f) => f.kind === 'GarbageValue')
        .map((f) => f.key)
        .sort(),
    ).toEqual([A.rebootNeeded, A.rebootOk, K.requestedAt, L.beforeReboot].sort());
  });

  it('adopts a reboot-ok it has no record of, fenced to the current boot', () => {
    const n = node('n1', { annotations: { [A.rebootOk]: 'true', [A.rebootNeeded]: 'true' } });
    const { nodes, result } = step({ nodes: [n], groups: [], now: NOW });
    expect(byName(nodes, 'n1').annotations[K.grantedBootId]).toBe('n1-boot-1');
    expect(result.findings.map((f) => f.kind)).toContain('GrantAdopted');
  });

  it('waits for a node that reports no boot ID', () => {
    const r = plan({ nodes: [asking('n1', { bootID: '' })], groups: [], now: NOW });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk])).toBe(false);
    expect(r.groupStatus.default?.queue[0]?.reason).toBe('NoBootID');
  });
});
