/**
 * Invariants 6-10 of reboot.md (timeouts keep counting, FIFO fairness, idempotence, restarts,
 * garbage) as fast-check properties over arbitrary snapshots, against independent oracles.
 */
import { type Protocol, parseTimestamp } from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyWrites, type NamedRebootGroup, type NodeSnapshot, plan } from '../../src/index.js';
import {
  A,
  arbGroups,
  asksOracle,
  countsOracle,
  grants,
  HOOK_AFTER,
  HOOK_BEFORE,
  K,
  L,
  MINUTE,
  NOW,
  P,
  startsCycle,
} from './fixtures.js';

import { arbScene, members, RUNS } from './scenes.js';

describe('invariant 6: timeouts keep counting', () => {
  it('marks an expired grant failed, keeps it granted and counted, and starts nothing new in its group', () => {
    fc.assert(
      fc.property(
        arbScene,
        fc.integer({ min: 0, max: 7 }),
        fc.integer({ min: 31, max: 600 }),
        ({ protocol, nodes, groups, now }, pick, ageMin) => {
          const i = pick % nodes.length;
          const victim = nodes[i] as NodeSnapshot;
          // A grant not acted upon (or whose reboot is not verified), older than any timeout in play.
          const stale: NodeSnapshot = {
            ...victim,
            labels: { ...victim.labels, pool: victim.labels.pool as string },
            annotations: {
              ...victim.annotations,
              [protocol.annotations.rebootOk]: 'true',
              [protocol.annotations.rebootNeeded]: 'true',
              [K.grantedAt]: new Date(now - (ageMin + 60) * MINUTE).toISOString(),
              [K.grantedBootId]: victim.bootID || 'boot-x',
            },
          };
          delete (stale.labels as Record<string, string>)[protocol.labels.afterReboot];
          const scene = nodes.map((n, j) => (j === i ? stale : n));
          const result = plan({ nodes: scene, groups, now, options: { protocol } });
          const after = applyWrites(scene, result.writes);
          const m = after[i] as NodeSnapshot;
          expect(m.annotations[K.failed]).toBeDefined();
          expect(m.annotations[protocol.annotations.rebootOk]).toBe('true');
          expect(countsOracle(m, protocol)).toBe(true);
          const g = result.membership[stale.name];
          for (const w of result.writes.filter((x) => result.membership[x.node] === g)) {
            expect(startsCycle(w, scene.find((n) => n.name === w.node) as NodeSnapshot, protocol)).toBe(
              false,
            );
          }
          expect(
            result.findings.some(
              (f) => f.node === stale.name && (f.kind === 'GrantTimedOut' || f.kind === 'NodeFailed'),
            ),
          ).toBe(true);
        },
      ),
      RUNS,
    );
  }, 60_000);
});

describe('invariant 7: FIFO fairness', () => {
  it('never starts a later requester while an earlier eligible one of its group keeps waiting', () => {
    let exercised = 0;
    fc.assert(
      fc.property(
        fc.oneof({ arbitrary: arbScene, weight: 1 }, { arbitrary: arbQueueScene, weight: 2 }),
        ({ protocol, nodes, groups, now }) => {
          const result = plan({ nodes, groups, now, options: { protocol } });
          const after = applyWrites(nodes, result.writes);
          const requestTime = (n: NodeSnapshot): number =>
            parseTimestamp(n.annotations[K.requestedAt]) ?? now;
          const earlier = (a: NodeSnapshot, b: NodeSnapshot): boolean =>
            requestTime(a) < requestTime(b) || (requestTime(a) === requestTime(b) && a.name < b.name);
          for (const w of result.writes) {
            const b = nodes.find((n) => n.name === w.node) as NodeSnapshot;
            if (!startsCycle(w, b, protocol) || holdsSlot(b, protocol)) continue;
            for (const a of members(result, nodes, result.membership[b.name] as string)) {
              const eligible =
                a !== b &&
                asksOracle(a, protocol) &&
                !holdsSlot(a, protocol) &&
                a.annotations[protocol.annotations.rebootInProgress] !== 'true' &&
                a.bootID !== '' &&
                earlier(a, b);
              if (!eligible) continue;
              const am = after.find((n) => n.name === a.name) as NodeSnapshot;
              expect(holdsSlot(am, protocol)).toBe(true);
              exercised++;
            }
          }
        },
      ),
      RUNS,
    );
    expect(exercised).toBeGreaterThan(100);
  }, 60_000);
});

/** Queues: healthy nodes, many asking with assorted request times, a few already in flight. */
const arbQueueScene = fc.record({
  protocol: fc.constant(P),
  nodes: fc.integer({ min: 2, max: 8 }).chain((size) =>
    fc.tuple(
      ...Array.from({ length: size }, (_, i) =>
        fc
          .record({
            asks: fc.boolean(),
            requested: fc.option(fc.integer({ min: -5, max: 0 }), { nil: undefined }),
            state: fc.constantFrom('idle', 'idle', 'idle', 'granted', 'notReady'),
            pool: fc.constantFrom('a', 'b'),
          })
          .map(({ asks, requested, state, pool }): NodeSnapshot => {
            const annotations: Record<string, string> = {};
            if (asks) annotations[A.rebootNeeded] = 'true';
            if (requested !== undefined)
              annotations[K.requestedAt] = new Date(NOW + requested * MINUTE).toISOString();
            if (state === 'granted') {
              annotations[A.rebootOk] = 'true';
              annotations[K.grantedAt] = new Date(NOW - MINUTE).toISOString();
              annotations[K.grantedBootId] = `n${i}-b`;
            }
            return {
              name: `n${i}`,
              resourceVersion: '1',
              labels: { pool },
              annotations,
              unschedulable: false,
              conditions: { Ready: state === 'notReady' ? 'False' : 'True' },
              bootID: `n${i}-b`,
            };
          }),
      ),
    ),
  ),
  groups: fc.constantFrom<NamedRebootGroup[][]>(
    [],
    [{ name: 'g', spec: { nodeSelector: { matchLabels: { pool: 'a' } }, maxUnavailable: 3 } }],
    [{ name: 'g', spec: { maxUnavailable: 4 } }],
    [{ name: 'g', spec: { maxUnavailable: '50%', beforeRebootAnnotations: [HOOK_BEFORE] } }],
  ),
  now: fc.constant(NOW),
});

function holdsSlot(n: NodeSnapshot, protocol: Protocol): boolean {
  return (
    n.labels[protocol.labels.beforeReboot] === 'true' ||
    n.annotations[protocol.annotations.rebootOk] === 'true' ||
    n.labels[protocol.labels.afterReboot] !== undefined ||
    n.annotations[K.grantedAt] !== undefined ||
    n.annotations[K.grantedBootId] !== undefined
  );
}

describe('invariant 8: idempotence', () => {
  it('planning the result of a plan (no time passing) writes nothing', () => {
    fc.assert(
      fc.property(arbScene, ({ protocol, nodes, groups, now }) => {
        const first = plan({ nodes, groups, now, options: { protocol } });
        const after = applyWrites(nodes, first.writes);
        expect(after.map((n) => n.resourceVersion)).not.toEqual(nodes.map(() => 'stale')); // all applied
        expect(first.writes.length).toBe(
          after.filter((n, i) => n.resourceVersion !== nodes[i]?.resourceVersion).length,
        );
        const second = plan({ nodes: after, groups, now, options: { protocol } });
        expect(second.writes).toEqual([]);
      }),
      RUNS,
    );
  }, 60_000);

  it('derives everything from the snapshot: the same snapshot always gives the same plan', () => {
    fc.assert(
      fc.property(arbScene, ({ protocol, nodes, groups, now }) => {
        const a = plan({ nodes, groups, now, options: { protocol } });
        const b = plan({
          nodes: structuredClone(nodes),
          groups: structuredClone(groups),
          now,
          options: { protocol },
        });
        expect(b).toEqual(a);
      }),
      RUNS,
    );
  }, 60_000);
});

describe('invariant 10: garbage never crashes and never grants a non-asking node', () => {
  const keys = [
    A.rebootNeeded,
    A.rebootOk,
    A.rebootPaused,
    A.rebootInProgress,
    A.agentMadeUnschedulable,
    K.requestedAt,
    K.grantedAt,
    K.grantedBootId,
    K.failed,
    K.rebootedAt,
    HOOK_BEFORE,
    HOOK_AFTER,
  ];
  const wild = fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.constantFrom(
      '-1',
      '-9999999999',
      'NaN',
      'Infinity',
      '1e309',
      'true ',
      '"true"',
      '0x1',
      '2025-13-45T99:99:99Z',
    ),
    fc.integer().map(String),
    fc.string({ minLength: 1, maxLength: 8 }).map((x) => x.repeat(500)),
  );
  const arbWildNode = (name: string): fc.Arbitrary<NodeSnapshot> =>
    fc
      .record({
        annotations: fc.dictionary(fc.constantFrom(...keys), wild, { maxKeys: keys.length }),
        labels: fc.dictionary(fc.constantFrom(L.beforeReboot, L.afterReboot, 'pool'), wild),
        bootID: fc.oneof(fc.constant('boot-1'), wild),
        ready: fc.constantFrom('True', 'False', 'Unknown', undefined),
        unschedulable: fc.boolean(),
      })
      .map((r) => ({
        name,
        resourceVersion: '1',
        labels: r.labels,
        annotations: r.annotations,
        unschedulable: r.unschedulable,
        conditions: r.ready ? { Ready: r.ready as 'True' } : {},
        bootID: r.bootID,
      }));
  const wildGroups = fc.array(
    fc.record({ name: fc.string({ maxLength: 8 }), spec: fc.anything() as fc.Arbitrary<never> }),
    { maxLength: 3 },
  );

  it('plans arbitrary strings without throwing and grants only asking nodes', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 5 })
          .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => arbWildNode(`n${i}`)))),
        fc.oneof(wildGroups, arbGroups()),
        fc.integer({ min: -1e12, max: 1e13 }),
        (nodes, groups, now) => {
          const result = plan({ nodes, groups, now });
          for (const w of result.writes) {
            const before = nodes.find((n) => n.name === w.node) as NodeSnapshot;
            if (grants(w, before)) expect(asksOracle(before)).toBe(true);
          }
          expect(plan({ nodes: applyWrites(nodes, result.writes), groups, now }).writes).toEqual([]);
        },
      ),
      RUNS,
    );
  }, 60_000);
});
