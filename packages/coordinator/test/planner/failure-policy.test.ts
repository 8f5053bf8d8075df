/**
 * The failure policy (`onFailure`, `maxFailed`) and the settle time (`settleTime`), rule by rule.
 */
import { describe, expect, it } from 'vitest';
import { applyWrites, type NodeSnapshot, type PlanInput, plan } from '../../src/index.js';
import { A, asking, byName, group, K, L, MINUTE, NOW, node, ts, writeFor } from './fixtures.js';

function step(input: PlanInput): { nodes: NodeSnapshot[]; result: ReturnType<typeof plan> } {
  const result = plan(input);
  return { nodes: applyWrites(input.nodes, result.writes), result };
}

/** A node whose grant timed out this round (granted 31 minutes ago, never acted on). */
function stale(name: string): NodeSnapshot {
  return node(name, {
    annotations: {
      [A.rebootNeeded]: 'true',
      [A.rebootOk]: 'true',
      [K.grantedAt]: ts(NOW - 31 * MINUTE),
      [K.grantedBootId]: `${name}-boot-1`,
    },
  });
}

describe('onFailure: SetAside', () => {
  const spec = { maxUnavailable: 1, onFailure: 'SetAside' as const, maxFailed: 1 };

  it('sets the failed node aside, withdraws its grant, and the group carries on', () => {
    const { nodes, result } = step({
      nodes: [stale('bad'), asking('n2')],
      groups: [group('g', spec)],
      now: NOW,
    });
    const bad = byName(nodes, 'bad');
    expect(bad.annotations[K.failed]).toMatch(/^GrantNotActedOn /);
    expect(bad.annotations[K.setAside]).toBe(bad.annotations[K.failed]);
    expect(bad.annotations[A.rebootOk]).toBeUndefined();
    expect(bad.annotations[K.grantedAt]).toBeUndefined();
    expect(writeFor(result.writes, 'bad')?.actions).toEqual(
      expect.arrayContaining(['MarkedFailed', 'SetAside']),
    );
    expect(byName(nodes, 'n2').annotations[A.rebootOk]).toBe('true'); // the group goes on
    expect(result.groupStatus.g).toMatchObject({ failed: 1, setAside: 1, unavailable: 1 });
    const halted = result.groupStatus.g?.conditions.find((c) => c.type === 'Halted');
    expect(halted).toMatchObject({ status: 'False' });
    expect(halted?.message).toContain(K.clearFailure);
    expect(result.events).toContainEqual(expect.objectContaining({ node: 'bad', reason: 'RebootSetAside' }));
  });

  it('never grants a set-aside node, which still asks, nor counts it', () => {
    const first = step({ nodes: [stale('bad'), node('n2')], groups: [group('g', spec)], now: NOW });
    const again = step({ nodes: first.nodes, groups: [group('g', spec)], now: NOW + MINUTE });
    expect(byName(again.nodes, 'bad').annotations[A.rebootOk]).toBeUndefined();
    expect(again.result.groupStatus.g?.queue).toEqual([]);
    expect(again.result.writes).toEqual([]); // a fixpoint
  });

  it('halts the group on the failure beyond maxFailed', () => {
    const { nodes, result } = step({
      nodes: [stale('a'), stale('b'), asking('n3')],
      groups: [group('g', spec)],
      now: NOW,
    });
    expect(byName(nodes, 'a').annotations[K.setAside]).toBeDefined();
    expect(byName(nodes, 'b').annotations[K.setAside]).toBeUndefined();
    expect(byName(nodes, 'n3').annotations[A.rebootOk]).toBeUndefined();
    expect(result.groupStatus.g?.conditions.find((c) => c.type === 'Halted')).toMatchObject({
      status: 'True',
      message: expect.stringContaining('failed: b'),
    });
  });

  it('halts at once with maxFailed 0, and Halt stays the default', () => {
    for (const g of [group('g', { ...spec, maxFailed: 0 }), group('g', { maxUnavailable: 1 })]) {
      const { nodes, result } = step({ nodes: [stale('bad'), asking('n2')], groups: [g], now: NOW });
      expect(byName(nodes, 'bad').annotations[K.setAside]).toBeUndefined();
      expect(result.groupStatus.g?.queue[0]?.reason).toBe('GroupHalted');
    }
  });

  it('reads maxFailed as a percentage of the group, rounded down', () => {
    const pct = group('g', { ...spec, maxFailed: '50%' });
    const { nodes } = step({
      nodes: [stale('a'), stale('b'), stale('c'), node('d')],
      groups: [pct],
      now: NOW,
    });
    expect(nodes.filter((n) => n.annotations[K.setAside] !== undefined).map((n) => n.name)).toEqual([
      'a',
      'b',
    ]);
  });

  it('lets clear-failure bring a set-aside node back to the end of the queue', () => {
    const first = step({ nodes: [stale('bad')], groups: [group('g', spec)], now: NOW });
    const bad = byName(first.nodes, 'bad');
    const cleared = { ...bad, annotations: { ...bad.annotations, [K.clearFailure]: 'true' } };
    const { nodes } = step({ nodes: [cleared], groups: [group('g', spec)], now: NOW + MINUTE });
    const back = byName(nodes, 'bad');
    expect(back.annotations[K.setAside]).toBeUndefined();
    expect(back.annotations[K.failed]).toBeUndefined();
    expect(back.annotations[A.rebootOk]).toBe('true'); // asked again and granted
  });

  it('refuses a bad policy as an invalid group', () => {
    const r = plan({
      nodes: [asking('n1')],
      groups: [group('g', { onFailure: 'Retry', maxFailed: -1 } as never)],
      now: NOW,
    });
    const valid = r.groupStatus.g?.conditions.find((c) => c.type === 'Valid');
    expect(valid?.message).toContain('spec.onFailure');
    expect(valid?.message).toContain('spec.maxFailed');
  });
});

describe('settleTime', () => {
  const spec = { maxUnavailable: 1, settleTime: '5m' };
  const returning = node('n1', {
    bootID: 'n1-boot-2',
    annotations: { [K.grantedAt]: ts(NOW - 10 * MINUTE), [K.grantedBootId]: 'n1-boot-1' },
  });

  it('keeps the slot until the node has stayed Ready and schedulable for the settle time', () => {
    const groups = [group('g', spec)];
    const first = step({
      nodes: [returning, asking('n2')],
      groups,
      now: NOW,
      options: { horizonMs: 60 * MINUTE },
    });
    expect(byName(first.nodes, 'n1').annotations[K.settlingSince]).toBe(ts(NOW));
    expect(byName(first.nodes, 'n2').annotations[A.rebootOk]).toBeUndefined();
    // The stamp's write brings a round of its own (a watch event), which wakes at the deadline.
    const replanned = plan({ nodes: first.nodes, groups, now: NOW, options: { horizonMs: 60 * MINUTE } });
    expect(replanned.wakeAfterMs).toBe(5 * MINUTE + 1);
    const later = step({ nodes: first.nodes, groups, now: NOW + 5 * MINUTE });
    const n1 = byName(later.nodes, 'n1');
    expect(n1.annotations[K.rebootedAt]).toBe(ts(NOW + 5 * MINUTE));
    expect(n1.annotations[K.settlingSince]).toBeUndefined();
    expect(byName(later.nodes, 'n2').annotations[A.rebootOk]).toBe('true');
  });

  it('starts again when the node goes down during its settle time', () => {
    const groups = [group('g', spec)];
    const first = step({ nodes: [returning], groups, now: NOW });
    const down = { ...byName(first.nodes, 'n1'), conditions: { Ready: 'False' as const } };
    const second = step({ nodes: [down], groups, now: NOW + 2 * MINUTE });
    expect(byName(second.nodes, 'n1').annotations[K.settlingSince]).toBeUndefined();
    const up = { ...byName(second.nodes, 'n1'), conditions: { Ready: 'True' as const } };
    const third = step({ nodes: [up], groups, now: NOW + 6 * MINUTE });
    expect(byName(third.nodes, 'n1').annotations[K.settlingSince]).toBe(ts(NOW + 6 * MINUTE));
    expect(byName(third.nodes, 'n1').annotations[K.rebootedAt]).toBeUndefined();
  });

  it('completes at once without a settle time (today’s behaviour)', () => {
    const { nodes } = step({ nodes: [returning], groups: [group('g', { maxUnavailable: 1 })], now: NOW });
    expect(byName(nodes, 'n1').annotations[K.rebootedAt]).toBe(ts(NOW));
    expect(byName(nodes, 'n1').labels[L.afterReboot]).toBeUndefined();
  });
});
