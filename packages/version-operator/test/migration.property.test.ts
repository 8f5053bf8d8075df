/**
 * The migration's steps against a model cluster that reacts at random moments: the coordinator
 * sees pauses late, stops and rolls out late, agents roll late, nodes drift (agents keep writing),
 * an administrator adds a group midway. Whatever the order, the properties of the issue hold.
 */
import type { ProtocolName } from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MigrationStatus } from '../src/api/reboot-stack.js';
import {
  type GroupView,
  type MigrationStep,
  startMigration,
  stepMigration,
} from '../src/decide/migration.js';

interface Model {
  groups: Map<string, { paused: boolean; observed: boolean }>;
  adminPaused: Set<string>;
  coordinator: { running: boolean; protocol: ProtocolName; wanted: ProtocolName; stopWanted: boolean };
  agent: { protocol: ProtocolName; wanted: ProtocolName };
  unmirrored: number;
}

type Event = 'observe' | 'coordinator' | 'agents' | 'drift' | 'newGroup' | 'nothing';
const events = fc.array(
  fc.constantFrom<Event>('observe', 'coordinator', 'agents', 'drift', 'newGroup', 'nothing'),
  {
    minLength: 1,
    maxLength: 4,
  },
);

function react(m: Model, e: Event, round: number): void {
  switch (e) {
    case 'observe':
      for (const g of m.groups.values()) g.observed = true;
      break;
    case 'coordinator':
      m.coordinator.running = !m.coordinator.stopWanted;
      if (m.coordinator.running) m.coordinator.protocol = m.coordinator.wanted;
      break;
    case 'agents':
      m.agent.protocol = m.agent.wanted;
      break;
    case 'drift':
      // Writers keep writing: some node's keys differ again until mirrored.
      m.unmirrored += 1;
      break;
    case 'newGroup':
      if (round < 20) m.groups.set(`late-${round}`, { paused: false, observed: false });
      break;
    case 'nothing':
      break;
  }
}

const world = (m: Model, migration: MigrationStatus) => ({
  migration,
  groups: [...m.groups].map(([name, g]): GroupView => ({ name, ...g })),
  coordinatorStopped: !m.coordinator.running,
  switched: {
    coordinator:
      m.coordinator.running && m.coordinator.protocol === migration.to && !m.coordinator.stopWanted,
    agent: m.agent.protocol === migration.to,
  },
  unmirrored: m.unmirrored,
});

function apply(m: Model, step: MigrationStep): void {
  for (const name of step.pause) {
    const g = m.groups.get(name);
    if (g) Object.assign(g, { paused: true, observed: false });
  }
  for (const name of step.resume) {
    const g = m.groups.get(name);
    if (g) Object.assign(g, { paused: false, observed: false });
  }
  if (step.mirror) m.unmirrored = 0;
  m.coordinator.wanted = step.protocols.coordinator;
  m.coordinator.stopWanted = step.stopCoordinator;
  m.agent.wanted = step.protocols.agent;
}

const initial = fc.record({
  groups: fc.uniqueArray(fc.constantFrom('control-plane', 'workers', 'edge', 'gpu'), { minLength: 1 }),
  adminPaused: fc.uniqueArray(fc.constantFrom('control-plane', 'workers', 'edge', 'gpu')),
  unmirrored: fc.nat(5),
});

describe('stepMigration', () => {
  it('pauses before anything switches, carries over with the coordinator stopped, switches coordinator then agents, resumes only what it paused', () => {
    fc.assert(
      fc.property(initial, fc.array(events, { minLength: 60, maxLength: 60 }), (init, schedule) => {
        const m: Model = {
          groups: new Map(
            init.groups.map((g) => [g, { paused: init.adminPaused.includes(g), observed: true }]),
          ),
          adminPaused: new Set(init.adminPaused.filter((g) => init.groups.includes(g))),
          coordinator: { running: true, protocol: 'fluo', wanted: 'fluo', stopWanted: false },
          agent: { protocol: 'fluo', wanted: 'fluo' },
          unmirrored: init.unmirrored,
        };
        let migration: MigrationStatus | undefined = startMigration('fluo', 'capstan');
        let carriedOver = false;
        let coordinatorSwitched = false;
        let pausedAll = false;
        for (let round = 0; migration && round < 200; round++) {
          const before = world(m, migration);
          const step = stepMigration(before);
          // Carry-over: the coordinator's keys move only while no coordinator runs, with nothing left to mirror.
          if (before.coordinatorStopped && before.unmirrored === 0 && step.stopCoordinator === false)
            carriedOver = true;
          if (step.protocols.coordinator === 'capstan') expect(carriedOver || coordinatorSwitched).toBe(true);
          if (before.switched.coordinator) coordinatorSwitched = true;
          if (step.protocols.agent === 'capstan') expect(coordinatorSwitched).toBe(true);
          // Nothing is resumed before the end, and never a group an administrator paused.
          if (step.migration) expect(step.resume).toEqual([]);
          for (const g of step.resume) expect(m.adminPaused.has(g)).toBe(false);
          apply(m, step);
          if (step.migration && step.migration.phase !== 'Pausing') pausedAll = true;
          // Once past pausing, no group grants until the migration is over (the budget holds).
          if (pausedAll && step.migration) for (const g of m.groups.values()) expect(g.paused).toBe(true);
          migration = step.migration;
          const happening =
            round < 60 ? (schedule[round] ?? []) : (['observe', 'coordinator', 'agents'] as Event[]);
          for (const e of happening) react(m, e, round);
        }
        // It ends (the world is fair after round 60), both speak ours, and pauses are as they were.
        expect(migration).toBeUndefined();
        expect(m.coordinator.wanted).toBe('capstan');
        expect(m.agent.wanted).toBe('capstan');
        for (const [name, g] of m.groups) expect(g.paused).toBe(m.adminPaused.has(name));
      }),
      { numRuns: 500 },
    );
  });
});
