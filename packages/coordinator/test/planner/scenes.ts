/**
 * What the invariant properties share: arbitrary scenes (nodes in either protocol, groups, a time
 * around NOW) and group-level counts read with the fixtures' independent oracles.
 */
import { fluoProtocol, type Protocol } from '@capstan/reboot-protocol';
import fc from 'fast-check';
import type { NamedRebootGroup, NodeSnapshot, Plan } from '../../src/index.js';
import { arbGroups, arbNodes, countsOracle, MINUTE, NOW, P } from './fixtures.js';

export const RUNS = { numRuns: 1000 };

export function groupOf(groups: readonly NamedRebootGroup[], name: string): NamedRebootGroup['spec'] {
  return groups.find((g) => g.name === name)?.spec ?? { maxUnavailable: 1, order: 1000 };
}

export function members(result: Plan, nodes: readonly NodeSnapshot[], g: string): NodeSnapshot[] {
  return nodes.filter((n) => result.membership[n.name] === g);
}

export function dCount(
  result: Plan,
  nodes: readonly NodeSnapshot[],
  g: string,
  protocol: Protocol = P,
): number {
  return members(result, nodes, g).filter((n) => countsOracle(n, protocol)).length;
}

export const arbProtocol = fc.constantFrom(P, fluoProtocol);

/** Arbitrary snapshot with nodes written in the given protocol. */
export const arbScene = arbProtocol.chain((protocol) =>
  fc.record({
    protocol: fc.constant(protocol),
    nodes: arbNodes(protocol),
    groups: arbGroups(),
    now: fc.integer({ min: -10, max: 10 }).map((m) => NOW + m * MINUTE),
  }),
);
