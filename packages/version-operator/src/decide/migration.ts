/**
 * A protocol migration on a live cluster (FLUO's keys → ours), as one pure step function.
 *
 * 1. Pausing: every RebootGroup not paused already is paused (and remembered), so the
 *    coordinator grants nothing new; in-flight nodes carry on. Wait until the coordinator has
 *    seen every pause (each group's status.observedGeneration has caught up).
 * 2. StoppingCoordinator: the coordinator is scaled to zero. Once no coordinator runs, nobody
 *    writes a coordinator-owned key, and every node's keys are mirrored to the new protocol
 *    (`mirror.ts`): each request and each grant, in flight or not, is carried over as it stands.
 * 3. SwitchingCoordinator: the coordinator starts on the new protocol (it still grants nothing:
 *    the groups are paused) and finds every grant where it now reads; it finishes in-flight
 *    cycles there, and mirroring copies its writes back to the old keys the agents still read.
 * 4. SwitchingAgents: the agent DaemonSet rolls out on the new protocol, node by node within its
 *    bound; each node's agent-owned keys are mirrored from whichever protocol its agent speaks.
 * 5. Resuming: once both speak the new protocol and every node is mirrored, the old protocol's
 *    keys are removed from every node and the groups this migration paused are resumed; the
 *    migration is over.
 *
 * The budget holds throughout: nothing new is granted before step 5 (the groups are paused), and
 * mirroring never adds a grant or an in-flight node. The coordinator's bookkeeping (granted-at,
 * granted-boot-id) lives under our prefix in both modes and is left as it is, so the boot-ID fence
 * carries over: an agent that already rebooted for a grant never acts on it again.
 */
import type { ProtocolName } from '@capstan/reboot-protocol';
import type { ComponentName, MigrationPhase, MigrationStatus } from '../api/reboot-stack.js';

/** A RebootGroup as the migration sees it. */
export interface GroupView {
  name: string;
  paused: boolean;
  /** The coordinator has reported on the group's latest spec. */
  observed: boolean;
}

/** What the step reads. */
export interface MigrationWorld {
  migration: MigrationStatus;
  groups: readonly GroupView[];
  /** No coordinator pod runs. */
  coordinatorStopped: boolean;
  /** Each workload has completely rolled out on the migration's target protocol. */
  switched: Record<ComponentName, boolean>;
  /** Nodes whose keys still differ between the two sides (mirrored with this phase's speakers). */
  unmirrored: number;
  /** What each workload's rollout still lacks, in words (for the wait's description). */
  lagging?: Partial<Record<ComponentName, string>>;
}

/** What to do this round. */
export interface MigrationStep {
  /** The migration's state after this round; undefined when it is over. */
  migration: MigrationStatus | undefined;
  /** Groups to pause now. */
  pause: string[];
  /** Groups to resume now. */
  resume: string[];
  /** Mirror every node's keys this round. */
  mirror: boolean;
  /** The protocol each component is rendered with. */
  protocols: Record<ComponentName, ProtocolName>;
  /** Render the coordinator scaled to zero. */
  stopCoordinator: boolean;
  /** Remove the old protocol's keys from every node (both sides agree and nobody reads them). */
  cleanup: boolean;
  /** Why the migration waits, for the Progressing condition. */
  waiting?: string;
}

/** The protocol the coordinator-owned keys are authoritative under in `m`'s phase. */
export function coordinatorSpeaker(m: MigrationStatus): ProtocolName {
  return m.phase === 'Pausing' || m.phase === 'StoppingCoordinator' ? m.from : m.to;
}

const at = (m: MigrationStatus, phase: MigrationPhase): MigrationStatus => ({ ...m, phase });

const detail = (world: MigrationWorld, component: ComponentName): string =>
  world.lagging?.[component] ? `: ${world.lagging[component]}` : '';

function wait(m: MigrationStatus, step: Partial<MigrationStep>, waiting: string): MigrationStep {
  return {
    migration: m,
    pause: [],
    resume: [],
    mirror: false,
    protocols: { coordinator: m.from, agent: m.from },
    stopCoordinator: false,
    cleanup: false,
    ...step,
    waiting,
  };
}

/**
 * The next step of `world.migration`. A group that appears unpaused after step 1 (created
 * meanwhile) is paused too, and resumed with the others.
 */
export function stepMigration(world: MigrationWorld): MigrationStep {
  const m = world.migration;
  if (m.phase !== 'Pausing' && m.phase !== 'Resuming') {
    const newcomers = world.groups.filter((g) => !g.paused).map((g) => g.name);
    if (newcomers.length > 0) {
      const pausedGroups = [...new Set([...m.pausedGroups, ...newcomers])];
      const groups = world.groups.map((g) => ({ ...g, paused: true }));
      const step = stepPhase({ ...world, groups, migration: { ...m, pausedGroups } });
      return { ...step, pause: [...new Set([...step.pause, ...newcomers])] };
    }
  }
  return stepPhase(world);
}

function stepPhase(world: MigrationWorld): MigrationStep {
  const m = world.migration;
  switch (m.phase) {
    case 'Pausing': {
      const pause = world.groups.filter((g) => !g.paused).map((g) => g.name);
      const paused = { ...m, pausedGroups: [...new Set([...m.pausedGroups, ...pause])] };
      const unseen = world.groups.filter((g) => !g.observed || !g.paused).map((g) => g.name);
      if (unseen.length > 0) {
        const names = unseen.sort().join(', ');
        return wait(
          paused,
          { pause },
          `waiting for the coordinator to see every RebootGroup paused (not yet: ${names})`,
        );
      }
      return stepPhase({ ...world, migration: at(paused, 'StoppingCoordinator') });
    }
    case 'StoppingCoordinator':
      if (!world.coordinatorStopped)
        return wait(
          m,
          { stopCoordinator: true },
          `waiting for the coordinator to stop${detail(world, 'coordinator')}`,
        );
      if (world.unmirrored > 0) {
        return wait(m, { stopCoordinator: true, mirror: true }, `carrying ${world.unmirrored} node(s) over`);
      }
      return stepPhase({ ...world, unmirrored: 0, migration: at(m, 'SwitchingCoordinator') });
    case 'SwitchingCoordinator': {
      const protocols = { coordinator: m.to, agent: m.from };
      if (!world.switched.coordinator) {
        return wait(
          m,
          { mirror: true, protocols },
          `coordinator rolling out on ${m.to}${detail(world, 'coordinator')}`,
        );
      }
      return stepPhase({ ...world, migration: at(m, 'SwitchingAgents') });
    }
    case 'SwitchingAgents': {
      const protocols = { coordinator: m.to, agent: m.to };
      if (!world.switched.agent)
        return wait(m, { mirror: true, protocols }, `agents rolling out on ${m.to}${detail(world, 'agent')}`);
      if (world.unmirrored > 0)
        return wait(m, { mirror: true, protocols }, `${world.unmirrored} node(s) to mirror`);
      return stepPhase({ ...world, migration: at(m, 'Resuming') });
    }
    case 'Resuming': {
      const names = new Set(world.groups.map((g) => g.name));
      return {
        migration: undefined,
        pause: [],
        resume: m.pausedGroups.filter((g) => names.has(g)),
        mirror: false,
        protocols: { coordinator: m.to, agent: m.to },
        stopCoordinator: false,
        cleanup: true,
      };
    }
  }
}

/** A new migration from `from` to `to`. */
export function startMigration(from: ProtocolName, to: ProtocolName): MigrationStatus {
  return { from, to, phase: 'Pausing', pausedGroups: [] };
}
