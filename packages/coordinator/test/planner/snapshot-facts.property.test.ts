/**
 * Facts kept beside frozen snapshots (`snapshotFacts`): the same facts as read afresh, the same
 * object on every later read, and plans from frozen snapshots (the planner service's, whose facts
 * are kept across rounds) equal to plans from unfrozen copies.
 */
import { capstanProtocol } from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFacts, snapshotFacts } from '../../src/decide/node-state.js';
import { type NodeSnapshot, plan } from '../../src/index.js';
import { arbScene } from './scenes.js';

/** A frozen copy, as the planner service keeps beside a cached Node. */
function frozen(n: NodeSnapshot): NodeSnapshot {
  return Object.freeze({
    ...n,
    labels: Object.freeze({ ...n.labels }),
    annotations: Object.freeze({ ...n.annotations }),
    conditions: Object.freeze({ ...n.conditions }),
  });
}

describe('snapshotFacts', () => {
  it('property: a frozen snapshot’s kept facts are those read afresh, and plans do not change', () => {
    fc.assert(
      fc.property(arbScene, ({ protocol, nodes, groups, now }) => {
        const kept = nodes.map(frozen);
        for (const n of kept) {
          const facts = snapshotFacts(n, protocol);
          expect(facts).toEqual(readFacts(n, n.annotations, n.labels, protocol));
          expect(snapshotFacts(n, protocol)).toBe(facts);
          expect(Object.isFrozen(facts)).toBe(true);
        }
        const afresh = plan({ nodes, groups, now, options: { protocol } });
        // Twice from the frozen snapshots: the second plan reads every fact from what was kept.
        expect(plan({ nodes: kept, groups, now, options: { protocol } })).toEqual(afresh);
        expect(plan({ nodes: kept, groups, now, options: { protocol } })).toEqual(afresh);
      }),
      { numRuns: 300 },
    );
  });

  it('reads an unfrozen snapshot afresh every time (a fresh list’s, which a plan may not keep)', () => {
    const n: NodeSnapshot = {
      name: 'a',
      resourceVersion: '1',
      labels: {},
      annotations: {},
      unschedulable: false,
      conditions: { Ready: 'True' },
      bootID: 'b',
    };
    expect(snapshotFacts(n, capstanProtocol)).not.toBe(snapshotFacts(n, capstanProtocol));
  });
});
