/**
 * The optimised planner against the straightforward one (`reference-plan.ts`): on random fleets,
 * with selectors over several labels (present, missing, empty, garbage specs) and nodes sharing
 * label values, both plans are equal in every field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyWrites,
  groupOfNode,
  groupsOfRound,
  type NamedRebootGroup,
  type NodeSnapshot,
  plan,
  type RebootGroupSpec,
} from '../../src/index.js';
import { arbGroups, arbNode, group, MINUTE, NOW } from './fixtures.js';
import { referencePlan } from './reference-plan.js';
import { arbProtocol, RUNS } from './scenes.js';

const KEYS = ['pool', 'zone', 'tier'] as const;
const VALUES = ['a', 'b', '', 'c d'] as const;

/** A label set over KEYS: each key missing or one of VALUES (the empty value is not a missing one). */
const arbLabels = fc.record(
  Object.fromEntries(KEYS.map((k) => [k, fc.option(fc.constantFrom(...VALUES), { nil: undefined })])),
);

const arbRequirement = fc.oneof(
  fc.record({
    key: fc.constantFrom(...KEYS),
    operator: fc.constantFrom('In', 'NotIn'),
    values: fc.subarray([...VALUES], { minLength: 1 }),
  }),
  fc.record({ key: fc.constantFrom(...KEYS), operator: fc.constantFrom('Exists', 'DoesNotExist') }),
);

/** Selectors of every shape, a few unusable (unknown operator, wrong types) or missing. */
const arbSpec: fc.Arbitrary<RebootGroupSpec> = fc
  .record({
    matchLabels: fc.option(
      fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), { maxKeys: 2 }),
      { nil: undefined },
    ),
    matchExpressions: fc.option(fc.array(arbRequirement, { maxLength: 2 }), { nil: undefined }),
    shape: fc.constantFrom('selector', 'selector', 'selector', 'none', 'badOperator', 'badLabels'),
    maxUnavailable: fc.constantFrom(1, 2, '50%'),
    order: fc.constantFrom(0, 1, 2),
  })
  .map((r): RebootGroupSpec => {
    const spec: RebootGroupSpec = { maxUnavailable: r.maxUnavailable, order: r.order };
    if (r.shape === 'none') return spec;
    const selector: Record<string, unknown> = {};
    if (r.matchLabels) selector.matchLabels = r.matchLabels;
    if (r.matchExpressions) selector.matchExpressions = r.matchExpressions;
    if (r.shape === 'badOperator') selector.matchExpressions = [{ key: 'pool', operator: 'Near' }];
    if (r.shape === 'badLabels') selector.matchLabels = { pool: 7 };
    return { ...spec, nodeSelector: selector as RebootGroupSpec['nodeSelector'] };
  });

/** Nodes in any state of the cycle, relabelled over KEYS; some names repeat (the first wins). */
const arbFleet = arbProtocol.chain((protocol) =>
  fc.record({
    protocol: fc.constant(protocol),
    nodes: fc.array(
      fc.tuple(fc.integer({ min: 0, max: 40 }), arbLabels).chain(([i, labels]) =>
        arbNode(`node-${i}`, protocol).map(
          (n): NodeSnapshot => ({
            ...n,
            labels: {
              ...Object.fromEntries(Object.entries(n.labels).filter(([k]) => k !== 'pool')),
              ...(Object.fromEntries(Object.entries(labels).filter(([, v]) => v !== undefined)) as Record<
                string,
                string
              >),
            },
          }),
        ),
      ),
      { maxLength: 40 },
    ),
    groups: fc.oneof(
      fc.array(arbSpec, { maxLength: 4 }).map((specs) => specs.map((s, i) => group(`g-${i}`, s))),
      arbGroups({ windows: true }),
    ),
    now: fc.integer({ min: -90, max: 90 }).map((m) => NOW + m * MINUTE),
    refused: fc.dictionary(
      fc.integer({ min: 0, max: 40 }).map((i) => `node-${i}`),
      fc.record({ message: fc.constantFrom('denied', 'invalid'), backedOff: fc.boolean() }),
      { maxKeys: 3 },
    ),
  }),
);

describe('the optimised planner', () => {
  it('plans exactly what the straightforward planner plans, on random fleets', () => {
    let busy = 0;
    fc.assert(
      fc.property(arbFleet, ({ protocol, nodes, groups, now, refused }) => {
        const input = { nodes, groups: groups as NamedRebootGroup[], now, refused, options: { protocol } };
        const optimised = plan(input);
        expect(optimised).toEqual(referencePlan(input));
        if (optimised.writes.length > 0 && Object.keys(optimised.groupStatus).length > 1) busy++;
      }),
      RUNS,
    );
    // Not vacuous: most fleets lead to writes across several groups.
    expect(busy).toBeGreaterThan(RUNS.numRuns / 2);
  }, 120_000);

  it('agrees with it round after round, each round planned from the writes of the one before', () => {
    fc.assert(
      fc.property(arbFleet, ({ protocol, nodes, groups, now }) => {
        let current = nodes;
        for (let round = 0; round < 4; round++) {
          const input = { nodes: current, groups: groups as NamedRebootGroup[], now: now + round * MINUTE };
          const optimised = plan({ ...input, options: { protocol } });
          expect(optimised).toEqual(referencePlan({ ...input, options: { protocol } }));
          current = applyWrites(current, optimised.writes);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('places a node, alone, in the group the plan of the whole fleet puts it in', () => {
    fc.assert(
      fc.property(arbFleet, ({ protocol, nodes, groups }) => {
        const input = { nodes, groups: groups as NamedRebootGroup[], now: NOW, options: { protocol } };
        const { membership } = plan(input);
        const round = groupsOfRound(input, []);
        // A repeated name is planned as its first node (the others are dropped).
        const first = nodes.filter((n, i) => nodes.findIndex((o) => o.name === n.name) === i);
        for (const n of first) expect(groupOfNode(n, round)).toBe(membership[n.name]);
      }),
      RUNS,
    );
  });
});
