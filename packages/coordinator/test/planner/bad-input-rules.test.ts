/**
 * The planner's answers to a strange world: nodes whose writes the server refuses, a node two
 * groups select, a group without a usable spec, and the reason a timed-out grant is marked failed.
 */
import { AGENT_FAILURE_ANNOTATION, formatAgentFailure } from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyWrites, type NamedRebootGroup, plan, type RebootGroupSpec } from '../../src/index.js';
import { A, asking, byName, group, K, MINUTE, NOW, node, startsCycle, ts } from './fixtures.js';
import { arbScene, RUNS } from './scenes.js';

describe('refused nodes', () => {
  it('never starts a cycle for a backed-off refused node, and reports it on its group', () => {
    fc.assert(
      fc.property(arbScene, fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (scene, picks) => {
        const refused = Object.fromEntries(
          scene.nodes
            .filter((_, i) => picks[i])
            .map((n) => [n.name, { message: `writes to ${n.name} refused`, backedOff: true }]),
        );
        const r = plan({ ...scene, options: { protocol: scene.protocol }, refused });
        for (const w of r.writes) {
          if (!refused[w.node]) continue;
          const before = scene.nodes.find((n) => n.name === w.node);
          expect(before && startsCycle(w, before, scene.protocol)).toBe(false);
          expect(w.consumesBudget).toBe(false);
        }
        for (const name of Object.keys(refused)) {
          const g = r.membership[name] as string;
          expect(r.findings).toContainEqual(
            expect.objectContaining({ kind: 'WritesRefused', node: name, group: g }),
          );
          const status = r.groupStatus[g];
          expect(status?.conditions.find((c) => c.type === 'Degraded')?.status).toBe('True');
        }
      }),
      RUNS,
    );
  });

  it('gives the slot of a backed-off node to the next in its queue', () => {
    const nodes = [
      asking('a', { annotations: { [A.rebootNeeded]: 'true', [K.requestedAt]: ts(NOW - 2 * MINUTE) } }),
      asking('b', { annotations: { [A.rebootNeeded]: 'true', [K.requestedAt]: ts(NOW - MINUTE) } }),
    ];
    const refused = { a: { message: 'refused', backedOff: true } };
    const after = applyWrites(nodes, plan({ nodes, groups: [], now: NOW, refused }).writes);
    expect(byName(after, 'a').annotations[A.rebootOk]).toBeUndefined();
    expect(byName(after, 'b').annotations[A.rebootOk]).toBe('true');
    // Its backoff over, it queues again like any node (and is still reported).
    const later = plan({
      nodes,
      groups: [],
      now: NOW,
      refused: { a: { message: 'refused', backedOff: false } },
    });
    expect(later.writes.map((w) => w.node)).toEqual(['a']);
    expect(later.findings.map((f) => f.kind)).toContain('WritesRefused');
  });
});

describe('a node two groups select', () => {
  it('is reported on both groups, not only the one it joins', () => {
    const nodes = [node('both', { labels: { role: 'cp', pool: 'p' } })];
    const groups = [
      group('control-plane', { nodeSelector: { matchLabels: { role: 'cp' } } }),
      group('pool', { nodeSelector: { matchLabels: { pool: 'p' } }, order: 5 }),
    ];
    const r = plan({ nodes, groups, now: NOW });
    expect(r.membership.both).toBe('control-plane');
    const pool = r.groupStatus.pool?.conditions.find((c) => c.type === 'Degraded');
    expect(pool).toMatchObject({ status: 'True', reason: 'NodeInSeveralGroups' });
    expect(pool?.message).toContain('not counted in pool');
    expect(r.groupStatus['control-plane']?.conditions.find((c) => c.type === 'Degraded')?.status).toBe(
      'True',
    );
  });
});

describe('a group without a usable spec', () => {
  for (const [what, spec] of [
    ['missing', undefined],
    ['null', null],
    ['a string', 'all'],
    ['a list', [1]],
  ] as const) {
    it(`is invalid and selects nothing when its spec is ${what}`, () => {
      const groups: NamedRebootGroup[] = [{ name: 'broken', spec: spec as unknown as RebootGroupSpec }];
      const r = plan({ nodes: [asking('n1'), node('n2')], groups, now: NOW });
      expect(r.membership).toEqual({ n1: 'default', n2: 'default' });
      expect(r.groupStatus.broken?.nodes).toBe(0);
      expect(r.findings).toContainEqual(expect.objectContaining({ kind: 'InvalidGroup', group: 'broken' }));
      // The default group is not held: a group that selects nothing leaves membership known.
      expect(r.writes.some((w) => w.node === 'n1' && w.setAnnotations[A.rebootOk] === 'true')).toBe(true);
    });
  }
});

describe('the reason of a timed-out grant', () => {
  const grantedAt = NOW - 31 * MINUTE;
  const granted = (annotations: Record<string, string>, unschedulable = false) =>
    node('n1', {
      unschedulable,
      annotations: {
        [A.rebootOk]: 'true',
        [A.rebootNeeded]: 'true',
        [K.grantedAt]: ts(grantedAt),
        [K.grantedBootId]: 'n1-boot-1',
        ...annotations,
      },
    });
  const failureOf = (n: ReturnType<typeof granted>) =>
    byName(applyWrites([n], plan({ nodes: [n], groups: [], now: NOW }).writes), 'n1').annotations[K.failed];

  it('is what the agent reported when it gave up after the grant (drained, uncordoned)', () => {
    const drain = formatAgentFailure('DrainFailed', grantedAt + MINUTE, '2 pods left after 600s');
    expect(failureOf(granted({ [AGENT_FAILURE_ANNOTATION]: drain }))).toBe(`DrainFailed ${ts(NOW)}`);
    const reboot = formatAgentFailure('RebootFailed', grantedAt + MINUTE, 'logind refused');
    expect(failureOf(granted({ [AGENT_FAILURE_ANNOTATION]: reboot }))).toBe(`RebootFailed ${ts(NOW)}`);
  });

  it('ignores an agent failure from before the grant, and garbage', () => {
    const old = formatAgentFailure('DrainFailed', grantedAt - MINUTE, 'an earlier cycle');
    expect(failureOf(granted({ [AGENT_FAILURE_ANNOTATION]: old }))).toBe(`GrantNotActedOn ${ts(NOW)}`);
    const junk = `Exploded ${ts(grantedAt + MINUTE)}: ?`;
    expect(failureOf(granted({ [AGENT_FAILURE_ANNOTATION]: junk }))).toBe(`GrantNotActedOn ${ts(NOW)}`);
    expect(failureOf(granted({ [A.rebootInProgress]: 'true' }, true))).toBe(`RebootNotVerified ${ts(NOW)}`);
  });
});
