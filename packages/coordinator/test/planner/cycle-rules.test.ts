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

  it('orders a slot for a node already down after the releases, though it takes no budget', () => {
    // The simulation's counterexample: n0 asks from NotReady while n1 and n2 come back.
    const back = (name: string) =>
      node(name, {
        bootID: `${name}-boot-2`,
        annotations: { [K.grantedAt]: ts(NOW - 10 * MINUTE), [K.grantedBootId]: `${name}-boot-1` },
      });
    const nodes = [asking('n0', { conditions: { Ready: 'False' } }), back('n1'), back('n2')];
    const r = plan({ nodes, groups: [group('g', { maxUnavailable: 2 })], now: NOW });
    expect(r.writes.map((w) => [w.node, w.consumesBudget])).toEqual([
      ['n1', false],
      ['n2', false],
      ['n0', false],
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
