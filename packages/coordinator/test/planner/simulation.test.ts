/**
 * Model-based simulation of the planner alone: nodes with simulated agents (FLUO-like: ask,
 * cordon and reboot when granted, come back with a new boot ID, uncordon once the grant is
 * withdrawn), hook controllers, random requests, node failures, hung agents, pauses, planner
 * crashes between writes and stale plans, and a clock moving through windows.
 *
 * Safety after every step: no applied write raises a group's |D| above max(budget, |D| before),
 * and the slots the coordinator gave out never exceed a budget. Liveness: once faults stop and time
 * passes, every node that asked has rebooted and nothing is left in flight.
 */

import { capstanProtocol, fluoProtocol, type Protocol } from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyWrite,
  type NamedRebootGroup,
  type NodeSnapshot,
  type NodeWrite,
  plan,
  type RebootGroupSpec,
} from '../../src/index.js';
import {
  budgetOracle,
  countsOracle,
  HOOK_AFTER,
  HOOK_BEFORE,
  holdsSlotOracle,
  K,
  MINUTE,
  NOW,
} from './fixtures.js';

type Stage = 'idle' | 'draining' | 'down' | 'booted';

interface Agent {
  needs: boolean;
  stage: Stage;
  hung: boolean;
  boots: number;
  /** Boot count when the pending request was made. */
  bootsAtRequest: number;
}

interface World {
  protocol: Protocol;
  groups: NamedRebootGroup[];
  nodes: NodeSnapshot[];
  agents: Map<string, Agent>;
  sick: Set<string>;
  now: number;
  /** Group of each node (labels never change in the simulation). */
  membership: Record<string, string>;
}

type Step =
  | { kind: 'request'; node: number }
  | { kind: 'agents' }
  | { kind: 'hooks' }
  | { kind: 'plan'; crashAfter: number; staleAgents: boolean }
  | { kind: 'tick'; minutes: number }
  | { kind: 'sick'; node: number }
  | { kind: 'heal'; node: number }
  | { kind: 'hang'; node: number }
  | { kind: 'pause'; node: number; on: boolean }
  | { kind: 'clearFailure'; node: number };

const WINDOWS: Record<string, RebootGroupSpec['windows']> = {
  none: undefined,
  berlinNights: [{ start: '22:00', end: '02:00', timeZone: 'Europe/Berlin' }],
  kolkataEarly: [
    { start: '01:00', end: '05:00', timeZone: 'Asia/Kolkata', days: ['Mon', 'Wed', 'Fri', 'Sat'] },
  ],
  newYorkOffice: [
    { start: '09:00', end: '17:00', timeZone: 'America/New_York', days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'] },
  ],
};

function update(world: World, name: string, fn: (n: NodeSnapshot) => Partial<NodeSnapshot>): void {
  world.nodes = world.nodes.map((n) =>
    n.name === name ? { ...n, ...fn(n), resourceVersion: String(Number(n.resourceVersion) + 1) } : n,
  );
}

function setAnnotations(world: World, name: string, set: Record<string, string>): void {
  update(world, name, (n) => ({ annotations: { ...n.annotations, ...set } }));
}

function readyOf(world: World, name: string): 'True' | 'False' {
  const a = world.agents.get(name) as Agent;
  return a.stage === 'down' || world.sick.has(name) ? 'False' : 'True';
}

/** One move of every agent that is not hung. */
function agentsAct(world: World): void {
  const a = world.protocol.annotations;
  for (const n of world.nodes) {
    const agent = world.agents.get(n.name) as Agent;
    if (agent.hung) continue;
    const ann = n.annotations;
    switch (agent.stage) {
      case 'idle':
        if (ann[a.rebootOk] === 'true' && ann[a.rebootNeeded] === 'true') {
          update(world, n.name, (m) => ({
            unschedulable: true,
            annotations: {
              ...m.annotations,
              [a.rebootInProgress]: 'true',
              [a.agentMadeUnschedulable]: 'true',
            },
          }));
          agent.stage = 'draining';
        } else if (agent.needs && ann[a.rebootNeeded] !== 'true' && ann[a.rebootOk] !== 'true') {
          setAnnotations(world, n.name, { [a.rebootNeeded]: 'true' });
        }
        break;
      case 'draining':
        agent.stage = 'down';
        agent.boots++;
        update(world, n.name, () => ({
          bootID: `${n.name}-boot-${agent.boots}`,
          conditions: { Ready: 'False' },
        }));
        break;
      case 'down':
        agent.stage = 'booted';
        agent.needs = false;
        update(world, n.name, (m) => ({
          conditions: { Ready: readyOf(world, n.name) },
          annotations: { ...m.annotations, [a.rebootNeeded]: 'false', [a.rebootInProgress]: 'false' },
        }));
        break;
      case 'booted':
        if (ann[a.rebootOk] !== 'true') {
          agent.stage = 'idle';
          if (ann[a.agentMadeUnschedulable] === 'true') {
            update(world, n.name, (m) => ({
              unschedulable: false,
              annotations: { ...m.annotations, [a.agentMadeUnschedulable]: 'false' },
            }));
          }
        }
        break;
    }
  }
}

/** Other controllers answer the hook labels. */
function hooksAct(world: World): void {
  const l = world.protocol.labels;
  for (const n of world.nodes) {
    if (n.labels[l.beforeReboot] === 'true' && n.annotations[HOOK_BEFORE] !== 'true') {
      setAnnotations(world, n.name, { [HOOK_BEFORE]: 'true' });
    }
    if (n.labels[l.afterReboot] === 'true' && n.annotations[HOOK_AFTER] !== 'true') {
      setAnnotations(world, n.name, { [HOOK_AFTER]: 'true' });
    }
  }
}

function groupSpec(world: World, g: string): RebootGroupSpec {
  return world.groups.find((x) => x.name === g)?.spec ?? { maxUnavailable: 1 };
}

function groupNodes(world: World, nodes: readonly NodeSnapshot[], g: string): NodeSnapshot[] {
  return nodes.filter((n) => world.membership[n.name] === g);
}

function budgetOf(world: World, g: string): number {
  return budgetOracle(groupSpec(world, g).maxUnavailable, groupNodes(world, world.nodes, g).length);
}

function checkSlots(world: World): void {
  for (const g of new Set(Object.values(world.membership))) {
    const held = groupNodes(world, world.nodes, g).filter((n) => holdsSlotOracle(n, world.protocol)).length;
    expect(held).toBeLessThanOrEqual(budgetOf(world, g));
  }
}

/** Applies writes like the reconciler: in order, conditional, stopping at the first failure. */
function applyChecked(world: World, writes: readonly NodeWrite[], limit: number): void {
  for (const w of writes.slice(0, limit)) {
    const node = world.nodes.find((n) => n.name === w.node);
    if (!node || node.resourceVersion !== w.resourceVersion) return;
    const g = world.membership[w.node] as string;
    const dBefore = groupNodes(world, world.nodes, g).filter((n) => countsOracle(n, world.protocol)).length;
    world.nodes = world.nodes.map((n) => (n.name === w.node ? applyWrite(n, w) : n));
    const dAfter = groupNodes(world, world.nodes, g).filter((n) => countsOracle(n, world.protocol)).length;
    expect(dAfter).toBeLessThanOrEqual(Math.max(budgetOf(world, g), dBefore));
  }
}

function planOnce(world: World, crashAfter = Number.POSITIVE_INFINITY, staleAgents = false): void {
  const result = plan({
    nodes: world.nodes,
    groups: world.groups,
    now: world.now,
    options: { protocol: world.protocol },
  });
  Object.assign(world.membership, result.membership);
  // A stale plan: agents and hooks move between the read and the writes (never faults, which no
  // coordinator could see coming).
  if (staleAgents) {
    agentsAct(world);
    hooksAct(world);
  }
  applyChecked(world, result.writes, crashAfter);
}

function run(world: World, step: Step): void {
  const names = world.nodes.map((n) => n.name);
  const name = 'node' in step ? (names[step.node % names.length] as string) : '';
  const agent = world.agents.get(name);
  switch (step.kind) {
    case 'request':
      if (!(agent as Agent).needs) (agent as Agent).bootsAtRequest = (agent as Agent).boots;
      (agent as Agent).needs = true;
      break;
    case 'agents':
      agentsAct(world);
      break;
    case 'hooks':
      hooksAct(world);
      break;
    case 'plan':
      planOnce(world, step.crashAfter, step.staleAgents);
      break;
    case 'tick':
      world.now += step.minutes * MINUTE;
      break;
    case 'sick':
      world.sick.add(name);
      update(world, name, () => ({ conditions: { Ready: readyOf(world, name) } }));
      break;
    case 'heal':
      world.sick.delete(name);
      update(world, name, () => ({ conditions: { Ready: readyOf(world, name) } }));
      break;
    case 'hang':
      (agent as Agent).hung = !(agent as Agent).hung;
      break;
    case 'pause':
      setAnnotations(world, name, { [world.protocol.annotations.rebootPaused]: step.on ? 'true' : 'false' });
      break;
    case 'clearFailure':
      update(world, name, (n) => {
        const annotations = { ...n.annotations };
        delete annotations[K.failed];
        return { annotations };
      });
      break;
  }
}

const arbStep: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.nat().map((node) => ({ kind: 'request' as const, node })), weight: 3 },
  { arbitrary: fc.constant({ kind: 'agents' as const }), weight: 4 },
  { arbitrary: fc.constant({ kind: 'hooks' as const }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('plan' as const),
      crashAfter: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.nat({ max: 3 })),
      staleAgents: fc.boolean(),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.integer({ min: 1, max: 240 }).map((minutes) => ({ kind: 'tick' as const, minutes })),
    weight: 3,
  },
  { arbitrary: fc.nat().map((node) => ({ kind: 'sick' as const, node })), weight: 1 },
  { arbitrary: fc.nat().map((node) => ({ kind: 'heal' as const, node })), weight: 1 },
  { arbitrary: fc.nat().map((node) => ({ kind: 'hang' as const, node })), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('pause' as const), node: fc.nat(), on: fc.boolean() }),
    weight: 1,
  },
  { arbitrary: fc.nat().map((node) => ({ kind: 'clearFailure' as const, node })), weight: 1 },
);

const arbGroupSpec: fc.Arbitrary<RebootGroupSpec> = fc
  .record({
    maxUnavailable: fc.constantFrom(1, 2, '50%', '34%'),
    order: fc.integer({ min: 0, max: 2 }),
    windows: fc.constantFrom(...Object.keys(WINDOWS)),
    before: fc.boolean(),
    after: fc.boolean(),
  })
  .map((r) => ({
    maxUnavailable: r.maxUnavailable,
    order: r.order,
    ...(WINDOWS[r.windows] ? { windows: WINDOWS[r.windows] } : {}),
    ...(r.before ? { beforeRebootAnnotations: [HOOK_BEFORE] } : {}),
    ...(r.after ? { afterRebootAnnotations: [HOOK_AFTER] } : {}),
    grantTimeout: '30m',
  }));

const arbWorld = fc.record({
  protocol: fc.constantFrom('capstan', 'fluo'),
  size: fc.integer({ min: 1, max: 6 }),
  pools: fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 6, maxLength: 6 }),
  groupA: arbGroupSpec,
  groupB: arbGroupSpec,
  start: fc.integer({ min: 0, max: 7 * 24 * 4 }).map((q) => NOW + q * 15 * MINUTE),
});

type WorldSeed = typeof arbWorld extends fc.Arbitrary<infer T> ? T : never;

function makeWorld(w: WorldSeed, capstan: Protocol): World {
  const protocol = w.protocol === 'fluo' ? fluoProtocol : capstan;
  const nodes: NodeSnapshot[] = Array.from({ length: w.size }, (_, i) => ({
    name: `node-${i}`,
    resourceVersion: '1',
    labels: { pool: w.pools[i] as string },
    annotations: {},
    unschedulable: false,
    conditions: { Ready: 'True' },
    bootID: `node-${i}-boot-0`,
  }));
  return {
    protocol,
    // Pool c is in no group: it falls into the default group.
    groups: [
      { name: 'pool-a', spec: { ...w.groupA, nodeSelector: { matchLabels: { pool: 'a' } } } },
      { name: 'pool-b', spec: { ...w.groupB, nodeSelector: { matchLabels: { pool: 'b' } } } },
    ],
    nodes,
    agents: new Map(
      nodes.map((n) => [
        n.name,
        { needs: false, stage: 'idle' as Stage, hung: false, boots: 0, bootsAtRequest: 0 },
      ]),
    ),
    sick: new Set(),
    now: w.start,
    membership: {},
  };
}

describe('simulation', () => {
  it('keeps every budget under faults, and reboots every requester once faults stop', () => {
    fc.assert(
      fc.property(arbWorld, fc.array(arbStep, { maxLength: 60 }), (w, steps) => {
        const world = makeWorld(w, capstanProtocol);
        for (const step of steps) {
          run(world, step);
          checkSlots(world);
        }
        // Faults stop: nodes heal, agents resume, admins unpause.
        for (const n of world.nodes) {
          world.sick.delete(n.name);
          (world.agents.get(n.name) as Agent).hung = false;
          setAnnotations(world, n.name, { [world.protocol.annotations.rebootPaused]: 'false' });
          update(world, n.name, () => ({ conditions: { Ready: readyOf(world, n.name) } }));
        }
        const requested = [...world.agents.entries()]
          .filter(([, a]) => a.needs)
          .map(([n, a]) => [n, a.bootsAtRequest] as const);
        const done = (): boolean =>
          [...world.agents.values()].every((a) => !a.needs && a.stage === 'idle') &&
          world.nodes.every(
            (n) =>
              !holdsSlotOracle(n, world.protocol) &&
              n.annotations[world.protocol.annotations.rebootNeeded] !== 'true' &&
              n.annotations[K.failed] === undefined,
          );
        let rounds = 0;
        for (; rounds < 3000 && !done(); rounds++) {
          world.now += 10 * MINUTE;
          agentsAct(world);
          hooksAct(world);
          // An admin acknowledges failures of nodes that finished their cycle.
          for (const n of world.nodes) {
            if (n.annotations[K.failed] !== undefined && !holdsSlotOracle(n, world.protocol)) {
              run(world, { kind: 'clearFailure', node: world.nodes.indexOf(n) });
            }
          }
          planOnce(world);
          checkSlots(world);
        }
        expect(done()).toBe(true);
        for (const [name, boots] of requested) {
          expect((world.agents.get(name) as Agent).boots).toBeGreaterThan(boots);
        }
      }),
      { numRuns: 1000 },
    );
  }, 300_000);
});
