/**
 * A node its coordinator set aside (`onFailure: SetAside`) is quarantined by its agent: cordoned,
 * as the agent's own cordon, until an administrator clears the failure (`clear-failure`, after
 * which the coordinator removes the set-aside mark); then the agent lifts only a cordon it made.
 * Pure decisions (fast-check) and the real agent against a real API server.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AgentMemory, INITIAL_MEMORY, type NodeFacts } from '../src/api/index.js';
import { decide } from '../src/decide/decide.js';
import { type RunningAgent, type StartAgentOptions, startAgent } from '../src/operator.js';
import { type PrivateBus, startPrivateBus } from '../src/testing/private-bus.js';
import { UNTIMED } from './fixtures.js';
import {
  agentIdentity,
  annotate,
  createNode,
  forbiddenCount,
  ManualSource,
  nodeEvents,
  uniqueName,
} from './helpers.js';

const k = capstanProtocol.annotations;
const NOW = 1_700_000_000_000;
const SET_ASIDE = {
  [coordinatorKeys.failed]: 'grant timed out',
  [coordinatorKeys.setAside]: 'grant timed out',
};

/** Decides and applies each patch until the agent waits; the node as it is then. */
function settle(
  node: NodeFacts,
  memory: AgentMemory,
): { node: NodeFacts; memory: AgentMemory; phase: string } {
  let current = node;
  let mem = memory;
  for (let i = 0; i < 10; i++) {
    const d = decide(
      { now: NOW, node: current, source: { rebootNeeded: true }, sourceKnown: true, os: undefined },
      mem,
      UNTIMED,
    );
    mem = d.memory;
    if (d.action.kind !== 'patch') return { node: current, memory: mem, phase: d.phase };
    const annotations = { ...current.annotations };
    for (const [key, value] of Object.entries(d.action.patch.annotations)) {
      if (value === null) delete annotations[key];
      else annotations[key] = value;
    }
    const labels = { ...current.labels };
    for (const [key, value] of Object.entries(d.action.patch.labels)) {
      if (value === null) delete labels[key];
      else labels[key] = value;
    }
    current = {
      ...current,
      annotations,
      labels,
      unschedulable: d.action.patch.unschedulable ?? current.unschedulable,
    };
  }
  throw new Error('the agent did not settle in 10 decisions');
}

describe('a set-aside node (property)', () => {
  it('is cordoned while set aside, whatever its cycle, and only the agent’s cordon is lifted once cleared', () => {
    fc.assert(
      fc.property(
        fc.record({
          unschedulable: fc.boolean(),
          agentMade: fc.constantFrom(undefined, 'true', 'false'),
          inProgress: fc.constantFrom(undefined, 'true', 'false'),
          booted: fc.boolean(),
        }),
        ({ unschedulable, agentMade, inProgress, booted }) => {
          const annotations: Record<string, string> = { [k.rebootNeeded]: 'true', ...SET_ASIDE };
          if (agentMade) annotations[k.agentMadeUnschedulable] = agentMade;
          if (inProgress) annotations[k.rebootInProgress] = inProgress;
          const node: NodeFacts = { name: 'n1', annotations, labels: {}, unschedulable, bootID: 'b1' };
          const memory = booted ? { ...INITIAL_MEMORY, booted: true } : INITIAL_MEMORY;
          const aside = settle(node, memory);
          expect(aside.phase).toBe('SetAside');
          expect(aside.node.unschedulable).toBe(true);
          expect(aside.node.annotations[k.rebootInProgress]).toBe('false');
          const ours = !unschedulable || agentMade === 'true';
          expect(aside.node.annotations[k.agentMadeUnschedulable]).toBe(ours ? 'true' : 'false');
          // The administrator clears it: the coordinator removes the failure and set-aside marks.
          const rest = { ...aside.node.annotations };
          delete rest[coordinatorKeys.failed];
          delete rest[coordinatorKeys.setAside];
          const cleared = settle({ ...aside.node, annotations: rest }, aside.memory);
          expect(cleared.phase).toBe('Idle');
          expect(cleared.node.unschedulable).toBe(!ours);
        },
      ),
    );
  });
});

const env = useControlPlane('agent-set-aside');
let admin: Client;
let agentKubeConfig: StartAgentOptions['kubeConfig'];
let bus: PrivateBus;
const agents: RunningAgent[] = [];

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  agentKubeConfig = await agentIdentity(env);
  bus = await startPrivateBus();
});
afterAll(async () => {
  await bus?.stop();
});
afterEach(async () => {
  for (const agent of agents.splice(0)) await stop(agent);
});

function run(nodeName: string): RunningAgent {
  const agent = startAgent({
    kubeConfig: agentKubeConfig,
    nodeName,
    source: new ManualSource({ rebootNeeded: true }),
    busAddress: bus.address,
    osReleasePath: '/nonexistent/os-release',
    podPollMs: 100,
  });
  agents.push(agent);
  return agent;
}

async function stop(agent: RunningAgent): Promise<void> {
  agents.splice(agents.indexOf(agent), 1);
  const text = await agent.manager.metrics.text();
  await agent.stop();
  // Cordoning a set-aside node needs no right the agent's RBAC and admission policy lack.
  expect(await forbiddenCount(text)).toBe(0);
}

const nodeOf = (name: string) => admin.get(Node, { name });

describe('the real agent on a set-aside node', () => {
  it('cordons it, keeps it cordoned across a restart, and uncordons it once cleared', async () => {
    const name = uniqueName('aside');
    await createNode(admin, name, { bootID: 'boot-1' });
    let agent = run(name);
    await eventually(async () => (await nodeOf(name)).metadata.annotations?.[k.rebootNeeded] === 'true', {
      what: 'the agent reports reboot-needed',
    });
    // The coordinator sets the failed node aside.
    await annotate(admin, name, SET_ASIDE);
    const cordoned = await eventually(
      async () => {
        const n = await nodeOf(name);
        return n.spec?.unschedulable === true ? n : undefined;
      },
      { what: 'the set-aside node cordoned', timeoutMs: 20_000 },
    );
    expect(cordoned.metadata.annotations?.[k.agentMadeUnschedulable]).toBe('true');
    const event = await eventually(
      async () => (await nodeEvents(admin, name)).find((e) => e.reason === 'SetAside'),
      { what: 'the SetAside event' },
    );
    expect(event.type).toBe('Warning');
    await eventually(async () => agent.agent.state.phase === 'SetAside', { what: 'the SetAside phase' });

    // A restarted agent (a new pod) does not lift the quarantine.
    await stop(agent);
    agent = run(name);
    await eventually(async () => agent.agent.state.phase === 'SetAside', {
      what: 'the restarted agent in SetAside',
      timeoutMs: 20_000,
    });
    expect((await nodeOf(name)).spec?.unschedulable).toBe(true);

    // clear-failure: the coordinator removes the marks; the agent lifts its own cordon.
    await annotate(admin, name, { [coordinatorKeys.failed]: null, [coordinatorKeys.setAside]: null });
    const uncordoned = await eventually(
      async () => {
        const n = await nodeOf(name);
        return n.spec?.unschedulable !== true ? n : undefined;
      },
      { what: 'uncordoned once cleared', timeoutMs: 20_000 },
    );
    expect(uncordoned.metadata.annotations?.[k.agentMadeUnschedulable]).toBe('false');
    await eventually(async () => (await nodeEvents(admin, name)).some((e) => e.reason === 'Uncordoned'), {
      what: 'the Uncordoned event',
    });
  });

  it('never lifts an administrator’s cordon of a set-aside node', async () => {
    const name = uniqueName('aside-admin');
    await createNode(admin, name, { bootID: 'boot-1', unschedulable: true });
    const agent = run(name);
    await annotate(admin, name, SET_ASIDE);
    await eventually(async () => agent.agent.state.phase === 'SetAside', { what: 'the SetAside phase' });
    // The phase is the agent's decision; its write (the cordon is not ours) lands after it.
    await eventually(
      async () => (await nodeOf(name)).metadata.annotations?.[k.agentMadeUnschedulable] === 'false',
      { what: `${k.agentMadeUnschedulable}=false` },
    );
    await annotate(admin, name, { [coordinatorKeys.failed]: null, [coordinatorKeys.setAside]: null });
    await eventually(async () => agent.agent.state.phase === 'Idle', { what: 'idle once cleared' });
    expect((await nodeOf(name)).spec?.unschedulable).toBe(true);
  });
});
