/**
 * The coordinator's conformance scenario, from its documented behaviour: nodes whose agents ask
 * for a reboot are granted one at a time within their group's budget, each node rebooted once.
 * The agents (the other party of the protocol) are played between ticks through the API, their
 * state kept on the Node itself, so the coordinator's crashes and stale reads never touch them.
 */
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Lease, Node } from '@capstan/runtime/client';
import type { ConformanceScenario, ConformanceUser, FakeCluster } from '@capstan/runtime/testing';
import { addCoordinator, RebootGroupType } from '../src/index.js';
import { holdsSlot, NAMESPACE } from './sim-kit.js';

const P = capstanProtocol.annotations;
/** The simulated agent's own state, on its Node. */
const STAGE = 'test.capstan.dev/stage';
const WANTS = 'test.capstan.dev/wants';
const BOOTS = 'test.capstan.dev/boots';
/** When the agent last acted: it takes a step at most every {@link AGENT_STEP_MS}, as draining takes a while. */
const ACTED = 'test.capstan.dev/acted-at';
const AGENT_STEP_MS = 2_000;
export const NODES = ['n1', 'n2', 'n3', 'n4'];
export const BUDGET = 1;
/**
 * Longer than every clock jump of a schedule together: the agents act only between jumps, so a
 * shorter one would time grants out (the node is then marked failed and waits for an
 * administrator, as documented), which this scenario is not about.
 */
export const GRANT_TIMEOUT_MS = 24 * 60 * 60_000;

const boots = (n: Node) => Number(n.metadata.annotations?.[BOOTS] ?? '0');

function nodeStatus(name: string, bootCount: number, ready: boolean) {
  return {
    status: {
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      nodeInfo: { bootID: `${name}-boot-${bootCount}`, machineID: `machine-${name}` },
    },
  };
}

/** One step of a FLUO-like agent on one node: ask, cordon when granted, go down, come back, uncordon. */
async function agentStep({ client, clock }: ConformanceUser, node: Node): Promise<void> {
  const name = node.metadata.name ?? '';
  const a = node.metadata.annotations ?? {};
  const now = clock.now();
  if (now - Number(a[ACTED] ?? '0') < AGENT_STEP_MS) return;
  const patch = (body: { metadata: { annotations: Record<string, string> }; spec?: unknown }) =>
    client.patch(Node, { name }, 'merge', {
      ...body,
      metadata: { annotations: { ...body.metadata.annotations, [ACTED]: String(now) } },
    });
  const stage = a[STAGE] ?? 'idle';
  const wants = a[WANTS] === 'true';
  if (stage === 'idle' && wants && a[P.rebootNeeded] !== 'true' && a[P.rebootOk] !== 'true') {
    await patch({ metadata: { annotations: { [P.rebootNeeded]: 'true' } } });
  } else if (stage === 'idle' && wants && a[P.rebootNeeded] === 'true' && a[P.rebootOk] === 'true') {
    await patch({
      metadata: {
        annotations: {
          [P.rebootInProgress]: 'true',
          [P.agentMadeUnschedulable]: 'true',
          [STAGE]: 'draining',
        },
      },
      spec: { unschedulable: true },
    });
  } else if (stage === 'draining') {
    await patch({ metadata: { annotations: { [STAGE]: 'down', [BOOTS]: String(boots(node) + 1) } } });
    await client.patch(Node, { name }, 'merge', nodeStatus(name, boots(node) + 1, false), {
      subresource: 'status',
    });
  } else if (stage === 'down') {
    await client.patch(Node, { name }, 'merge', nodeStatus(name, boots(node), true), {
      subresource: 'status',
    });
    await patch({
      metadata: {
        annotations: {
          [STAGE]: 'booted',
          [WANTS]: 'false',
          [P.rebootNeeded]: 'false',
          [P.rebootInProgress]: 'false',
        },
      },
    });
  } else if (stage === 'booted' && a[P.rebootOk] !== 'true') {
    await patch({
      metadata: { annotations: { [P.agentMadeUnschedulable]: 'false', [STAGE]: 'idle' } },
      spec: { unschedulable: false },
    });
  }
}

/** Every node rebooted exactly once, none holding a slot or cordoned. */
function everyNodeRebootedOnce(cluster: FakeCluster): true | string {
  for (const n of cluster.objects(Node)) {
    const name = n.metadata.name;
    if (boots(n) !== 1) return `${name} rebooted ${boots(n)} times`;
    if (holdsSlot(n, capstanProtocol)) return `${name} still holds a slot`;
    if (n.spec?.unschedulable) return `${name} still cordoned`;
  }
  return true;
}

export const coordinatorScenario: ConformanceScenario = {
  name: 'reboot coordinator',
  kinds: [Node, RebootGroupType, Lease],
  setup: (manager) => {
    addCoordinator(manager, {
      namespace: NAMESPACE,
      protocol: capstanProtocol,
      defaultGroup: { maxUnavailable: BUDGET },
      defaultGrantTimeoutMs: GRANT_TIMEOUT_MS,
    });
  },
  world: async ({ client }) => {
    for (const name of NODES) {
      await client.create(Node, { metadata: { name, labels: { pool: 'workers' } } });
      await client.patch(Node, { name }, 'merge', nodeStatus(name, 0, true), { subresource: 'status' });
    }
    return undefined;
  },
  tick: async (user) => {
    for (const node of user.cluster.objects(Node)) await agentStep(user, node);
    return undefined;
  },
  actions: [
    {
      name: 'n1 and n2 ask for a reboot',
      run: async ({ client }) => {
        for (const name of ['n1', 'n2'])
          await client.patch(Node, { name }, 'merge', { metadata: { annotations: { [WANTS]: 'true' } } });
        return undefined;
      },
    },
    {
      name: 'n3 and n4 ask for a reboot',
      run: async ({ client }) => {
        for (const name of ['n3', 'n4'])
          await client.patch(Node, { name }, 'merge', { metadata: { annotations: { [WANTS]: 'true' } } });
        return undefined;
      },
    },
  ],
  converged: everyNodeRebootedOnce,
  invariants: {
    'never more nodes granted than the budget': (cluster) => {
      const holders = cluster.objects(Node).filter((n) => holdsSlot(n, capstanProtocol));
      return (
        holders.length <= BUDGET ||
        `${holders.map((n) => n.metadata.name).join(', ')} hold slots (budget ${BUDGET})`
      );
    },
    'no node rebooted twice': (cluster) => cluster.objects(Node).every((n) => boots(n) <= 1),
  },
  stepMs: 5_000,
  settleMs: 15 * 60_000,
};
