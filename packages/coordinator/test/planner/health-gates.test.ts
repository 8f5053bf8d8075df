/**
 * Health gates in the planner: a node running a blocking pod is neither scheduled nor granted,
 * the next node is served, a gate that could not be read blocks the whole group (fail closed),
 * and a scheduled node held by a gate is bounded by the hook timeout.
 */
import { describe, expect, it } from 'vitest';
import { applyWrites, plan } from '../../src/index.js';
import { A, asking, byName, group, K, L, MINUTE, NOW, ts } from './fixtures.js';

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
