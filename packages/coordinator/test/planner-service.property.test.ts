/**
 * The planner service keeps each cached (frozen) Node's snapshot beside it instead of making it
 * every round: planning the same world again, or from unfrozen copies of its nodes (a fresh
 * list's), plans alike, and a node replaced by a changed object is seen changed.
 */
import type { Client } from '@capstan/runtime';
import type { Node } from '@capstan/runtime/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type NodeSnapshot, PlannerService, type RebootGroup, type World } from '../src/index.js';
import { A, arbGroups, arbNodes, NOW } from './planner/fixtures.js';

/** A snapshot as the API server would have sent its Node. */
function nodeOf(s: NodeSnapshot): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: s.name,
      resourceVersion: s.resourceVersion,
      labels: { ...s.labels },
      annotations: { ...s.annotations },
    },
    spec: { unschedulable: s.unschedulable },
    status: {
      conditions: Object.entries(s.conditions).map(([type, status]) => ({ type, status })),
      nodeInfo: { bootID: s.bootID, ...(s.machineID ? { machineID: s.machineID } : {}) },
    },
  } as Node;
}

/** Frozen all the way down, as the cache holds objects. */
function deepFrozen<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const child of Object.values(v)) deepFrozen(child);
    Object.freeze(v);
  }
  return v;
}

const service = () => new PlannerService({ namespace: 'capstan-system' }, {} as Client);

describe('PlannerService.planFor', () => {
  it('property: frozen nodes plan as their unfrozen copies do, round after round', () => {
    fc.assert(
      fc.property(arbNodes(), arbGroups(), (snapshots, named) => {
        const groups = named.map((g) => ({ metadata: { name: g.name }, spec: g.spec }) as RebootGroup);
        const frozen: World = { nodes: snapshots.map((s) => deepFrozen(nodeOf(s))), groups };
        const copies: World = { nodes: snapshots.map(nodeOf), groups };
        const planner = service();
        const first = planner.planFor(frozen, NOW);
        const again = planner.planFor(frozen, NOW);
        const fresh = service().planFor(copies, NOW);
        expect(again.plan).toEqual(first.plan);
        expect(first.plan).toEqual(fresh.plan);
        expect(first.nodes).toEqual(fresh.nodes);
      }),
    );
  });

  it('sees a node changed when the cache replaces its object', () => {
    const planner = service();
    const before = deepFrozen(
      nodeOf({
        name: 'n1',
        resourceVersion: '1',
        labels: {},
        annotations: {},
        unschedulable: false,
        conditions: { Ready: 'True' },
        bootID: 'b1',
      }),
    );
    const changed = deepFrozen({
      ...before,
      metadata: { ...before.metadata, resourceVersion: '2', annotations: { [A.rebootNeeded]: 'true' } },
    });
    const world = (n: Node): World => ({ nodes: [n], groups: [] });
    expect(planner.planFor(world(before), NOW).nodes[0]?.annotations).toEqual({});
    const after = planner.planFor(world(changed), NOW).nodes[0];
    expect(after?.resourceVersion).toBe('2');
    expect(after?.annotations).toEqual({ [A.rebootNeeded]: 'true' });
    expect(Object.isFrozen(after)).toBe(true);
  });
});
