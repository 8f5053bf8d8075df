/**
 * Health gates in the planner: a node running a blocking pod is neither scheduled nor granted,
 * the next node is served, a gate that could not be read blocks the whole group (fail closed),
 * and a scheduled node held by a gate is bounded by the hook timeout.
 */
import { describe, expect, it } from 'vitest';
import { applyWrites, plan } from '../../src/index.js';
import { A, asking, byName, group, K, L, MINUTE, NOW, node, ts } from './fixtures.js';

const g = group('g', { maxUnavailable: 1, gates: { blockingPods: { matchLabels: { app: 'batch' } } } });
const first = asking('n1', { annotations: { [K.requestedAt]: ts(NOW - 2 * MINUTE) } });
const second = asking('n2', { annotations: { [K.requestedAt]: ts(NOW - MINUTE) } });

describe('blockingPods', () => {
  it('passes over a node running a blocking pod, and serves the next', () => {
    const r = plan({
      nodes: [first, second],
      groups: [g],
      now: NOW,
      gates: { g: { blockingPods: { n1: ['jobs/batch-1'] } } },
    });
    const nodes = applyWrites([first, second], r.writes);
    expect(byName(nodes, 'n1').labels[L.beforeReboot]).toBeUndefined();
    expect(byName(nodes, 'n2').annotations[A.rebootOk]).toBe('true');
    expect(r.groupStatus.g?.queue).toEqual([
      expect.objectContaining({
        node: 'n1',
        reason: 'BlockingPods',
        message: expect.stringContaining('jobs/batch-1'),
      }),
    ]);
  });

  it('grants once the pod is gone', () => {
    const r = plan({ nodes: [first], groups: [g], now: NOW, gates: { g: { blockingPods: {} } } });
    expect(applyWrites([first], r.writes)[0]?.annotations[A.rebootOk]).toBe('true');
  });

  it('blocks every node when the gate could not be read (fail closed)', () => {
    const r = plan({ nodes: [first, second], groups: [g], now: NOW, gates: { g: { error: 'pods: 503' } } });
    expect(r.writes.every((w) => w.setAnnotations[A.rebootOk] === undefined)).toBe(true);
    expect(r.groupStatus.g?.queue.map((q) => q.reason)).toEqual(['GateFailed', 'GateFailed']);
  });

  it('sends a scheduled node a gate holds back to the queue at the hook timeout', () => {
    const scheduled = asking('n1', {
      labels: { [L.beforeReboot]: 'true' },
      annotations: { [K.requestedAt]: ts(NOW - 40 * MINUTE), [K.hookWaitSince]: ts(NOW - 31 * MINUTE) },
    });
    const r = plan({
      nodes: [scheduled],
      groups: [g],
      now: NOW,
      gates: { g: { blockingPods: { n1: ['a/b'] } } },
    });
    const n1 = applyWrites([scheduled], r.writes)[0];
    expect(n1?.labels[L.beforeReboot]).toBeUndefined();
    expect(n1?.annotations[K.requestedAt]).toBe(ts(NOW));
  });

  it('refuses an unusable selector as an invalid group', () => {
    const bad = group('g', {
      gates: { blockingPods: { matchExpressions: [{ key: 'a', operator: 'Near' }] } },
    } as never);
    const r = plan({ nodes: [first], groups: [bad], now: NOW });
    expect(r.groupStatus.g?.conditions.find((c) => c.type === 'Valid')?.message).toContain(
      'spec.gates.blockingPods',
    );
  });
});

describe('Prometheus and conditions gates', () => {
  const pg = group('g', { maxUnavailable: 1, hookTimeout: '10m' });
  const closed = {
    g: { health: [{ gate: 'prometheus', state: 'Closed' as const, message: 'alerts active: X' }] },
  };
  const erroring = { g: { health: [{ gate: 'prometheus', state: 'Error' as const, message: 'refused' }] } };
  // Granted on boot 1, back on boot 2: only the release is left.
  const back = (settlingFor?: number) =>
    node('n1', {
      bootID: 'n1-boot-2',
      annotations: {
        [K.grantedAt]: ts(NOW - 20 * MINUTE),
        [K.grantedBootId]: 'n1-boot-1',
        ...(settlingFor === undefined ? {} : { [K.settlingSince]: ts(NOW - settlingFor) }),
      },
    });

  it('hold a grant while closed, and name the gate in the queue', () => {
    const r = plan({ nodes: [first, second], groups: [pg], now: NOW, gates: closed });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk] === 'true')).toBe(false);
    expect(r.groupStatus.g?.queue.map((q) => q.reason)).toEqual(['GateClosed', 'GateClosed']);
    expect(r.groupStatus.g?.queue[0]?.message).toContain('prometheus: alerts active: X');
    expect(r.groupStatus.g?.gates).toEqual(closed.g.health);
  });

  it('fail closed: an erroring gate blocks with GateFailed', () => {
    const r = plan({ nodes: [first], groups: [pg], now: NOW, gates: erroring });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk] === 'true')).toBe(false);
    expect(r.groupStatus.g?.queue[0]?.reason).toBe('GateFailed');
  });

  it('keep a rebooted node’s slot while closed, and free it once open', () => {
    const held = plan({ nodes: [back(), second], groups: [pg], now: NOW, gates: closed });
    const n1 = byName(applyWrites([back(), second], held.writes), 'n1');
    expect(n1.annotations[K.grantedAt]).toBeDefined();
    expect(n1.annotations[K.settlingSince]).toBe(ts(NOW));
    const open = { g: { health: [{ gate: 'prometheus', state: 'Open' as const, message: 'ok' }] } };
    const freed = plan({ nodes: [back(MINUTE)], groups: [pg], now: NOW, gates: open });
    const done = applyWrites([back(MINUTE)], freed.writes)[0];
    expect(done?.annotations[K.grantedAt]).toBeUndefined();
    expect(done?.annotations[K.rebootedAt]).toBe(ts(NOW));
  });

  it('mark a rebooted node failed once its gates stay shut past the hook timeout', () => {
    const early = plan({ nodes: [back(9 * MINUTE)], groups: [pg], now: NOW, gates: erroring });
    expect(early.writes).toEqual([]);
    const late = plan({ nodes: [back(10 * MINUTE)], groups: [pg], now: NOW, gates: erroring });
    const n1 = applyWrites([back(10 * MINUTE)], late.writes)[0];
    expect(n1?.annotations[K.failed]).toMatch(/^GateClosedAfterReboot /);
    expect(n1?.annotations[K.grantedAt]).toBeDefined();
  });
});
