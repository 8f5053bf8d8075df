/**
 * Deadlines on every wait that holds a slot (`hookTimeout`), and the one action that clears a
 * failed node (`clear-failure`). Each of these failed before the change: a scheduled node whose
 * before-reboot annotations never came held its slot forever, and removing the failure marker
 * alone left the grant in place to be marked failed again.
 */
import { describe, expect, it } from 'vitest';
import { applyWrites, type NodeSnapshot, type PlanInput, plan } from '../../src/index.js';
import { A, asking, byName, group, K, L, MINUTE, NOW, node, ts, writeFor } from './fixtures.js';

const HOOK = 'example.com/drained-ok';
const AFTER_HOOK = 'example.com/healthy';
const CLEAR = 'reboot.capstan.dev/clear-failure';
const WAITING_SINCE = 'reboot.capstan.dev/hook-wait-since';

function step(input: PlanInput): { nodes: NodeSnapshot[]; result: ReturnType<typeof plan> } {
  const result = plan(input);
  return { nodes: applyWrites(input.nodes, result.writes), result };
}

/** Rounds at the given times, each on the result of the last. */
function rounds(
  nodes: NodeSnapshot[],
  groups: PlanInput['groups'],
  times: readonly number[],
  options?: PlanInput['options'],
) {
  let current = nodes;
  let last: ReturnType<typeof plan> | undefined;
  for (const now of times) {
    const r = step({ nodes: current, groups, now, ...(options ? { options } : {}) });
    current = r.nodes;
    last = r.result;
  }
  return { nodes: current, result: last as ReturnType<typeof plan> };
}

describe('hookTimeout: before-reboot hooks', () => {
  const groups = [group('g', { maxUnavailable: 1, beforeRebootAnnotations: [HOOK], hookTimeout: '10m' })];

  it('sends a scheduled node whose hooks never come back to the queue, and serves the next', () => {
    const start = [asking('n1', { annotations: { [K.requestedAt]: ts(NOW - 2 * MINUTE) } }), asking('n2')];
    const first = rounds(start, groups, [NOW]);
    expect(byName(first.nodes, 'n1').labels[L.beforeReboot]).toBe('true');
    expect(first.result.groupStatus.g?.queue.find((q) => q.node === 'n2')?.reason).toBe('BudgetExhausted');

    const later = NOW + 11 * MINUTE;
    const { nodes, result } = rounds(first.nodes, groups, [later]);
    // n1 went to the back of the queue; n2, first now, holds the slot.
    expect(byName(nodes, 'n1').labels[L.beforeReboot]).toBeUndefined();
    expect(byName(nodes, 'n1').annotations[K.requestedAt]).toBe(ts(later));
    expect(byName(nodes, 'n2').labels[L.beforeReboot]).toBe('true');
    expect(writeFor(result.writes, 'n1')?.actions).toContain('HookTimedOut');
    expect(result.events).toContainEqual(
      expect.objectContaining({ node: 'n1', type: 'Warning', reason: 'BeforeRebootHooksTimedOut' }),
    );
    const degraded = result.groupStatus.g?.conditions.find((c) => c.type === 'Degraded');
    expect(degraded).toMatchObject({ status: 'True', reason: 'HookTimedOut' });
    expect(result.groupStatus.g?.queue.find((q) => q.node === 'n1')?.reason).toBe('BudgetExhausted');
  });

  it('keeps a scheduled node within its deadline, and wakes when the deadline is due', () => {
    const first = rounds([asking('n1')], groups, [NOW]);
    const { nodes, result } = rounds(first.nodes, groups, [NOW + 9 * MINUTE], { horizonMs: 60 * MINUTE });
    expect(byName(nodes, 'n1').labels[L.beforeReboot]).toBe('true');
    expect(result.writes).toEqual([]);
    expect(result.wakeAfterMs).toBe(MINUTE + 1);
  });

  it('defaults to 30 minutes when the group sets none', () => {
    const noTimeout = [group('g', { maxUnavailable: 1, beforeRebootAnnotations: [HOOK] })];
    const first = rounds([asking('n1'), asking('n2')], noTimeout, [NOW]);
    const { nodes } = rounds(first.nodes, noTimeout, [NOW + 31 * MINUTE]);
    expect(byName(nodes, 'n2').labels[L.beforeReboot]).toBe('true');
  });

  it('adopts a scheduled node without a wait stamp (an older coordinator scheduled it) from now', () => {
    const old = asking('n1', {
      labels: { [L.beforeReboot]: 'true' },
      annotations: { [K.requestedAt]: ts(NOW) },
    });
    const { nodes } = rounds([old], groups, [NOW + 60 * MINUTE]);
    expect(byName(nodes, 'n1').annotations[WAITING_SINCE]).toBe(ts(NOW + 60 * MINUTE));
    expect(byName(nodes, 'n1').labels[L.beforeReboot]).toBe('true');
  });
});

describe('hookTimeout: after-reboot hooks', () => {
  const groups = [group('g', { afterRebootAnnotations: [AFTER_HOOK], hookTimeout: '10m' })];
  const verified = node('n1', {
    bootID: 'n1-boot-2',
    labels: { [L.afterReboot]: 'true' },
    annotations: {
      [A.rebootOk]: 'true',
      [K.grantedAt]: ts(NOW - 5 * MINUTE),
      [K.grantedBootId]: 'n1-boot-1',
      [WAITING_SINCE]: ts(NOW),
    },
  });

  it('marks a rebooted node whose after-reboot hooks never come failed, with an event', () => {
    const { nodes, result } = rounds([verified], groups, [NOW + 11 * MINUTE]);
    expect(byName(nodes, 'n1').annotations[K.failed]).toMatch(/^AfterRebootHooksTimedOut /);
    expect(result.events).toContainEqual(
      expect.objectContaining({ node: 'n1', type: 'Warning', reason: 'RebootFailed' }),
    );
  });

  it('releases it when its hooks pass within the deadline', () => {
    const passed = { ...verified, annotations: { ...verified.annotations, [AFTER_HOOK]: 'true' } };
    const { nodes } = rounds([passed], groups, [NOW + 2 * MINUTE]);
    expect(byName(nodes, 'n1').annotations[A.rebootOk]).toBeUndefined();
    expect(byName(nodes, 'n1').annotations[WAITING_SINCE]).toBeUndefined();
  });
});

describe('clear-failure: one action clears a failed node', () => {
  const failedNode = node('n1', {
    annotations: {
      [A.rebootNeeded]: 'true',
      [A.rebootOk]: 'true',
      [K.grantedAt]: ts(NOW - 60 * MINUTE),
      [K.grantedBootId]: 'n1-boot-1',
      [K.failed]: `GrantNotActedOn ${ts(NOW - 30 * MINUTE)}`,
    },
  });

  it('names the action in the Halted condition', () => {
    const r = plan({ nodes: [failedNode, asking('n2')], groups: [], now: NOW });
    const halted = r.groupStatus.default?.conditions.find((c) => c.type === 'Halted');
    expect(halted?.message).toContain(CLEAR);
    expect(r.groupStatus.default?.queue.find((q) => q.node === 'n2')?.message).toContain(CLEAR);
  });

  it('clears the marker, the grant and its records, and the group resumes', () => {
    const cleared = { ...failedNode, annotations: { ...failedNode.annotations, [CLEAR]: 'true' } };
    const { nodes, result } = rounds(
      [cleared, asking('n2', { annotations: { [K.requestedAt]: ts(NOW - MINUTE) } })],
      [],
      [NOW],
    );
    const n1 = byName(nodes, 'n1');
    for (const key of [K.failed, A.rebootOk, K.grantedAt, K.grantedBootId, CLEAR]) {
      expect(n1.annotations[key]).toBeUndefined();
    }
    expect(writeFor(result.writes, 'n1')?.actions).toContain('FailureCleared');
    expect(byName(nodes, 'n2').annotations[A.rebootOk]).toBe('true');
    // Still asking, n1 waits behind n2 for its next turn; it is not marked failed again.
    const again = rounds(nodes, [], [NOW + 2 * 60 * MINUTE]);
    expect(byName(again.nodes, 'n1').annotations[K.failed]).toBeUndefined();
  });

  it('removing only the marker is not enough: the stale grant is marked failed again', () => {
    const { [K.failed]: _, ...rest } = failedNode.annotations;
    const { nodes } = rounds([{ ...failedNode, annotations: rest }], [], [NOW]);
    expect(byName(nodes, 'n1').annotations[K.failed]).toBeDefined();
  });

  it('is removed, and changes nothing else, on a node that is not failed', () => {
    const { nodes, result } = rounds([node('n1', { annotations: { [CLEAR]: 'yes' } })], [], [NOW]);
    expect(byName(nodes, 'n1').annotations).toEqual({});
    expect(writeFor(result.writes, 'n1')?.actions).toEqual(['Normalized']);
  });
});
