/**
 * The agent's conformance scenarios, from its documented behaviour (docs/ARCHITECTURE.md, the
 * agent's decide.ts): a granted node is cordoned, drained, then rebooted once per update; a drain
 * that cannot finish abandons the cycle without a reboot; the agent lifts only a cordon it made.
 * The agent is wired by `addAgent`, as its main wires it, with the machine at the boundary its
 * options allow: the reboot-needed source and the rebooter. The machine, the coordinator and the
 * workload are played by ./agent-world.ts.
 */
import { AGENT_FAILURE_ANNOTATION, capstanProtocol, parseAgentFailure } from '@capstan/reboot-protocol';
import type { Manager } from '@capstan/runtime';
import { ConfigMap, Node, Pod } from '@capstan/runtime/client';
import type { ConformanceScenario, ConformanceUser, FakeCluster, WorldCheck } from '@capstan/runtime/testing';
import { type AgentOptions, addAgent } from '../src/operator.js';
import {
  createWorld,
  MachineSource,
  machineOf,
  machineRebooter,
  NODE,
  stageUpdate,
  worldStep,
} from './agent-world.js';

const k = capstanProtocol.annotations;

/** The run's user, for the source and rebooter the agent's set-up makes (runs are sequential). */
let current: ConformanceUser | undefined;
const user = (): ConformanceUser => {
  if (!current) throw new Error('the world was not set up');
  return current;
};

/** Which agent to run: `addAgent` as main calls it, or a broken copy for a mutation check. */
export type AgentWiring = (manager: Manager, options: AgentOptions) => unknown;

export interface AgentScenarioOptions {
  name: string;
  /** Updates the user stages, one action each. */
  updates: number;
  /** Workload pods hold a finalizer: evicted, they never go, so the drain cannot finish. */
  stuckPods?: boolean;
  /** The node is cordoned by an administrator before anything starts. */
  adminCordon?: boolean;
  drainTimeoutMs: number;
  wiring?: AgentWiring;
}

const nodeOf = (cluster: FakeCluster) => cluster.getObject(Node, { name: NODE });

/** The agent's safety properties: they must hold after every write and every step. */
function invariants(options: AgentScenarioOptions): Record<string, WorldCheck> {
  return {
    'no double reboot': (cluster) => {
      const m = machineOf(cluster);
      return m.boots <= m.updates || `${m.boots} reboots for ${m.updates} updates`;
    },
    'no reboot after a failed drain': (cluster) => {
      const m = machineOf(cluster);
      if (m.undrained > 0) return 'a reboot was asked with a workload pod on the node, or uncordoned';
      if (!options.stuckPods) return true;
      return (m.boots === 0 && m.askedAt < 0) || 'rebooted although its drain could not finish';
    },
    'no lost cordon': (cluster) => {
      const node = nodeOf(cluster);
      const cordoned = node?.spec?.unschedulable === true;
      if (options.adminCordon && !cordoned) return "the administrator's cordon was lifted";
      if (node?.metadata.annotations?.[k.rebootInProgress] === 'true' && !cordoned)
        return 'in progress but schedulable';
      return cordoned || machineOf(cluster).askedAt < 0 || 'a reboot under way on a schedulable node';
    },
  };
}

/** Where every run must end: each update rebooted once (or, stuck, the failure reported) and the node released. */
function converged(options: AgentScenarioOptions): WorldCheck {
  return (cluster) => {
    const node = nodeOf(cluster);
    const a = node?.metadata.annotations ?? {};
    const m = machineOf(cluster);
    if (a[k.rebootOk] === 'true') return 'still granted';
    if (a[k.rebootInProgress] === 'true') return 'still in progress';
    if ((node?.spec?.unschedulable === true) !== (options.adminCordon === true))
      return `unschedulable is ${node?.spec?.unschedulable}`;
    if (options.stuckPods) {
      const failure = parseAgentFailure(a[AGENT_FAILURE_ANNOTATION]);
      return failure?.reason === 'DrainFailed' || `no DrainFailed reported (${a[AGENT_FAILURE_ANNOTATION]})`;
    }
    if (m.staged || m.boots !== m.updates) return `${m.boots} reboots for ${m.updates} updates`;
    return a[k.rebootNeeded] === 'false' || `reboot-needed is ${a[k.rebootNeeded]}`;
  };
}

/** A scenario of one node's agent under the harness. */
export function agentScenario(options: AgentScenarioOptions): ConformanceScenario {
  const wiring = options.wiring ?? addAgent;
  return {
    name: options.name,
    kinds: [Node, Pod, ConfigMap],
    manager: { fieldManager: 'capstan-agent', eventSource: 'reboot.capstan.dev/agent' },
    setup: (manager: Manager) => {
      wiring(manager, {
        nodeName: NODE,
        source: new MachineSource(user),
        rebooter: machineRebooter(user),
        osReleasePath: '/nonexistent/os-release',
        drainTimeoutMs: options.drainTimeoutMs,
        drainGracePeriodSeconds: 0,
        podPollMs: 1_000,
      });
    },
    world: async (u) => {
      current = u;
      await createWorld(u, { adminCordon: options.adminCordon === true });
      return undefined;
    },
    tick: async (u) => {
      await worldStep(u, { stuckPods: options.stuckPods === true });
      return undefined;
    },
    actions: Array.from({ length: options.updates }, (_, i) => ({
      name: `update ${i + 1} is staged`,
      run: async (u: ConformanceUser) => {
        await stageUpdate(u);
        return undefined;
      },
    })),
    converged: converged(options),
    invariants: invariants(options),
    stepMs: 5_000,
    settleMs: 15 * 60_000,
  };
}

/** Longer than every clock jump of a schedule together: a drain that can finish never times out. */
const NEVER_MS = 24 * 60 * 60_000;

/** Two updates, each a cordon, a drain and one reboot. */
export const rebootsScenario = (wiring?: AgentWiring) =>
  agentScenario({
    name: 'agent: two updates',
    updates: 2,
    drainTimeoutMs: NEVER_MS,
    ...(wiring ? { wiring } : {}),
  });

/** A drain that cannot finish: the cycle is abandoned, never rebooted. */
export const stuckDrainScenario = (wiring?: AgentWiring) =>
  agentScenario({
    name: 'agent: a drain that cannot finish',
    updates: 1,
    stuckPods: true,
    drainTimeoutMs: 60_000,
    ...(wiring ? { wiring } : {}),
  });

/** An administrator's cordon: the node rebooted, and left cordoned. */
export const adminCordonScenario = (wiring?: AgentWiring) =>
  agentScenario({
    name: "agent: an administrator's cordon",
    updates: 1,
    adminCordon: true,
    drainTimeoutMs: NEVER_MS,
    ...(wiring ? { wiring } : {}),
  });
