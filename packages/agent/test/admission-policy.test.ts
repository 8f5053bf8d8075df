/**
 * deploy/admission-policy.yaml on the real API server: the agent runs with a token bound to its
 * pod on node A (TokenRequest, as the kubelet mints it for the DaemonSet pod), and the policy lets
 * it write only node A, only the agent's keys and spec.unschedulable, and evict only pods on A.
 * The key lists in the YAML are checked against the protocol's constants.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { podBoundKubeConfig, readManifests } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import {
  ADMIN_REBOOT_REQUEST_ANNOTATION,
  AGENT_CONDITION_TYPES,
  AGENT_DRAIN_STARTED_ANNOTATION,
  AGENT_FAILURE_ANNOTATION,
  AGENT_QUARANTINED_ANNOTATION,
  AGENT_QUARANTINED_CONDITION,
  AGENT_REBOOT_HISTORY_ANNOTATION,
  AGENT_SOURCE_ERROR_ANNOTATION,
  AGENT_TARGET_VERSION_ANNOTATION,
  capstanProtocol,
  coordinatorKeys,
  fluoProtocol,
  type Protocol,
} from '@capstan/reboot-protocol';
import { type ApiError, Client, isNotFound, type KubeObject } from '@capstan/runtime';
import { DaemonSet, HttpTransport, Node, Pod } from '@capstan/runtime/client';
import { createLogger } from '@capstan/runtime/manager';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeIdentityError, verifyNodeIdentity } from '../src/node-identity.js';
import { startAgent } from '../src/operator.js';
import {
  createNode,
  createPodOn,
  forbiddenCount,
  loadManifest,
  ManualSource,
  removePolicies,
  uniqueName,
} from './helpers.js';

const env = useControlPlane('agent-policy');
const SA = 'capstan-agent';
let admin: Client;
let agent: Client;
let nodeA: string;
let nodeB: string;
const pods: Record<string, Pod> = {};

const createPod = (name: string, node: string, owner?: DaemonSet) =>
  createPodOn(admin, env.namespace, name, node, owner);

/** What a write the policy denies rejects with. */
const forbidden = (text: string) => ({ code: 403, message: expect.stringContaining(text) });

/** The message `write` was refused with ('' when it was admitted). */
const refusal = (write: Promise<unknown>) =>
  write.then(
    () => '',
    (err: ApiError) => err.message,
  );

/** Whether the pod is there, being deleted, or gone. */
async function podState(key: {
  namespace: string;
  name: string;
}): Promise<'running' | 'terminating' | 'gone'> {
  try {
    const pod = await admin.get(Pod, key);
    return pod.metadata.deletionTimestamp ? 'terminating' : 'running';
  } catch (err) {
    if (isNotFound(err)) return 'gone';
    throw err;
  }
}

const quiet = () => createLogger({ level: 'silent' });

const patchNode = (client: Client, name: string, body: unknown, dryRun = false) =>
  client.patch(Node, { name }, 'merge', body, { dryRun });

/** A strategic merge patch of one condition (merged by type) on a Node's status. */
const patchCondition = (client: Client, name: string, type: string, status: 'True' | 'False') =>
  client.patchStatus(Node, { name }, 'strategic', {
    status: {
      conditions: [
        {
          type,
          status,
          reason: 'Test',
          message: 'from the policy test',
          lastTransitionTime: '2026-01-01T00:00:00Z',
          lastHeartbeatTime: '2026-01-01T00:00:00Z',
        },
      ],
    },
  });

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  await env.plane.createObjects(loadManifest('rbac.yaml', env.namespace), { ignoreExisting: true });
  await env.plane.createObjects(loadManifest('admission-policy.yaml', env.namespace));
  nodeA = uniqueName('policy-a');
  nodeB = uniqueName('policy-b');
  for (const name of [nodeA, nodeB]) {
    await createNode(admin, name, { bootID: `${name}-boot-1` });
    await patchNode(admin, name, { metadata: { labels: { 'example.com/pool': 'blue' } } });
  }
  const [manifest] = loadManifest('daemonset.yaml', env.namespace) as [DaemonSet];
  const daemonSet = await admin.create(DaemonSet, manifest);
  pods.agent = await createPod('capstan-agent-a', nodeA, daemonSet);
  pods.webA = await createPod('web-a', nodeA);
  pods.webB = await createPod('web-b', nodeB);
  agent = new Client(
    new HttpTransport(await podBoundKubeConfig(env.kubeConfig, env.namespace, SA, 'capstan-agent-a')),
  );
  // RBAC and the policies reach the API server through informers: wait until both deny (dry runs).
  await eventually(
    async () => {
      const message = await refusal(
        patchNode(agent, nodeB, { metadata: { annotations: { probe: 'x' } } }, true),
      );
      const evict = await refusal(
        agent.evict(
          { namespace: env.namespace, name: 'web-b' },
          { preconditions: { uid: pods.webB?.metadata.uid ?? '' }, dryRun: true },
        ),
      );
      return message.includes('capstan-agent-nodes') && evict.includes('capstan-agent-evictions');
    },
    { what: 'the agent policies to take effect', timeoutMs: 20_000 },
  );
});

afterAll(async () => {
  for (const name of [nodeA, nodeB]) if (name) await admin?.deleteIfExists(Node, { name });
  if (admin) await removePolicies(admin, loadManifest('admission-policy.yaml', env.namespace));
});

describe('the agent with a token bound to its pod on node A', () => {
  it("may remove an administrator's reboot request on its node, never set or change it", async () => {
    const set = await refusal(
      patchNode(agent, nodeA, { metadata: { annotations: { [ADMIN_REBOOT_REQUEST_ANNOTATION]: 'me' } } }),
    );
    expect(set).toContain(`the update agent may not change annotations ${ADMIN_REBOOT_REQUEST_ANNOTATION}`);
    await patchNode(admin, nodeA, {
      metadata: { annotations: { [ADMIN_REBOOT_REQUEST_ANNOTATION]: 'CHG-1' } },
    });
    const changed = await refusal(
      patchNode(agent, nodeA, { metadata: { annotations: { [ADMIN_REBOOT_REQUEST_ANNOTATION]: 'CHG-2' } } }),
    );
    expect(changed).toContain(`may not change annotations ${ADMIN_REBOOT_REQUEST_ANNOTATION}`);
    await patchNode(agent, nodeA, { metadata: { annotations: { [ADMIN_REBOOT_REQUEST_ANNOTATION]: null } } });
    const after = await admin.get(Node, { name: nodeA });
    expect(after.metadata.annotations?.[ADMIN_REBOOT_REQUEST_ANNOTATION]).toBeUndefined();
  });

  it('patches its own node: agent annotations and labels, cordon and uncordon', async () => {
    const k = capstanProtocol.annotations;
    const l = capstanProtocol.labels;
    await patchNode(agent, nodeA, {
      metadata: {
        annotations: {
          [k.rebootNeeded]: 'true',
          [k.status]: 'UPDATE_STATUS_IDLE',
          [AGENT_FAILURE_ANNOTATION]: 'x',
        },
        labels: { [l.rebootNeeded]: 'true', [l.id]: 'flatcar' },
      },
    });
    await patchNode(agent, nodeA, {
      metadata: { annotations: { [k.rebootInProgress]: 'true', [k.agentMadeUnschedulable]: 'true' } },
      spec: { unschedulable: true },
    });
    expect((await admin.get(Node, { name: nodeA })).spec?.unschedulable).toBe(true);
    await patchNode(agent, nodeA, { spec: { unschedulable: null } });
    const node = await admin.get(Node, { name: nodeA });
    expect(node.spec?.unschedulable).toBeUndefined();
    expect(node.metadata.annotations?.[k.rebootInProgress]).toBe('true');
    expect(node.metadata.labels?.[l.id]).toBe('flatcar');
  });

  it("writes its own node's conditions through nodes/status, and nothing else of the status", async () => {
    for (const type of AGENT_CONDITION_TYPES) {
      await patchCondition(agent, nodeA, type, 'True');
      await patchCondition(agent, nodeA, type, 'False');
    }
    await patchCondition(admin, nodeA, 'Ready', 'True');
    const before = await admin.get(Node, { name: nodeA });
    expect(await refusal(patchCondition(agent, nodeA, 'Ready', 'False'))).toContain(
      'may not change node conditions Ready',
    );
    expect(await refusal(patchCondition(agent, nodeA, 'DiskPressure', 'True'))).toContain(
      'may not change node conditions DiskPressure',
    );
    const addresses = { status: { addresses: [{ type: 'InternalIP', address: '10.9.9.9' }] } };
    expect(await refusal(agent.patchStatus(Node, { name: nodeA }, 'merge', addresses))).toContain(
      'may change only its own conditions',
    );
    const bootID = { status: { nodeInfo: { bootID: 'forged' } } };
    expect(await refusal(agent.patchStatus(Node, { name: nodeA }, 'merge', bootID))).toContain(
      'may change only its own conditions',
    );
    // A status write that changes metadata is held to the same keys as any other write.
    const key = { metadata: { annotations: { [capstanProtocol.annotations.rebootOk]: 'true' } } };
    expect(await refusal(agent.patchStatus(Node, { name: nodeA }, 'merge', key))).toContain(
      `may not change annotations ${capstanProtocol.annotations.rebootOk}`,
    );
    expect(await refusal(patchCondition(agent, nodeB, AGENT_QUARANTINED_CONDITION, 'True'))).toContain(
      `may not write node ${nodeB}`,
    );
    const after = await admin.get(Node, { name: nodeA });
    const types = (n: Node) => (n.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`).sort();
    expect(types(after)).toEqual(types(before));
    expect(after.status?.nodeInfo?.bootID).toBe(`${nodeA}-boot-1`);
    expect(after.metadata.annotations?.[capstanProtocol.annotations.rebootOk]).toBeUndefined();
  });

  it('may not patch node B, not even its own keys there', async () => {
    await expect(
      patchNode(agent, nodeB, {
        metadata: { annotations: { [capstanProtocol.annotations.rebootNeeded]: 'true' } },
      }),
    ).rejects.toMatchObject(forbidden(`the update agent on node ${nodeA} may not write node ${nodeB}`));
    await expect(patchNode(agent, nodeB, { spec: { unschedulable: true } })).rejects.toMatchObject(
      forbidden('may not write node'),
    );
  });

  it.each([
    ['the grant', capstanProtocol.annotations.rebootOk],
    ['the FLUO grant', fluoProtocol.annotations.rebootOk],
    ['the grant fence', coordinatorKeys.grantedBootId],
    ['the pause', capstanProtocol.annotations.rebootPaused],
  ])('may not set %s on its own node', async (_, key) => {
    await expect(
      patchNode(agent, nodeA, { metadata: { annotations: { [key]: 'true' } } }),
    ).rejects.toMatchObject(forbidden(`may not change annotations ${key}`));
  });

  it('may not change other labels (the coordinator’s hook labels included), taints or other spec fields', async () => {
    await expect(
      patchNode(agent, nodeA, { metadata: { labels: { 'example.com/pool': 'green' } } }),
    ).rejects.toMatchObject(forbidden('may not change labels example.com/pool'));
    await expect(
      patchNode(agent, nodeA, { metadata: { labels: { [capstanProtocol.labels.beforeReboot]: 'true' } } }),
    ).rejects.toMatchObject(forbidden(`may not change labels ${capstanProtocol.labels.beforeReboot}`));
    await expect(
      patchNode(agent, nodeA, { spec: { taints: [{ key: 'example.com/x', effect: 'NoSchedule' }] } }),
    ).rejects.toMatchObject(forbidden('may change only spec.unschedulable'));
    await expect(patchNode(agent, nodeA, { spec: { providerID: 'fake://a' } })).rejects.toMatchObject(
      forbidden('may change only spec.unschedulable'),
    );
    const node = await admin.get(Node, { name: nodeA });
    expect(node.metadata.labels?.['example.com/pool']).toBe('blue');
    expect((node.spec?.taints ?? []).map((t) => t.key)).not.toContain('example.com/x');
  });

  it('evicts pods on its node only, and only by uid', async () => {
    const key = (p: Pod) => ({ namespace: env.namespace, name: p.metadata.name ?? '' });
    const webA = pods.webA as Pod;
    const webB = pods.webB as Pod;
    await expect(
      agent.evict(key(webB), { preconditions: { uid: webB.metadata.uid ?? '' } }),
    ).rejects.toMatchObject(
      forbidden(
        `the update agent on node ${nodeA} may not evict pod ${env.namespace}/web-b on node ${nodeB}`,
      ),
    );
    await expect(agent.evict(key(webA))).rejects.toMatchObject(forbidden('must name the uid'));
    await agent.evict(key(webA), { preconditions: { uid: webA.metadata.uid ?? '' }, gracePeriodSeconds: 0 });
    expect(await podState(key(webA))).toBe('gone');
    expect(await podState(key(webB))).toBe('running');
  });

  it('a service-account identity without a node claim may write nothing', async () => {
    const unbound = new Client(
      new HttpTransport(await env.plane.serviceAccountKubeConfig(env.namespace, SA)),
    );
    await expect(
      patchNode(unbound, nodeA, { metadata: { annotations: { [capstanProtocol.annotations.status]: 'x' } } }),
    ).rejects.toMatchObject(forbidden("the update agent's token names no node"));
  });

  it('passes the start-up check for node A only; an unbound identity fails it unless allowed', async () => {
    await expect(
      verifyNodeIdentity(agent, nodeA, { allowUnboundToken: false, logger: quiet() }),
    ).resolves.toBeUndefined();
    await expect(
      verifyNodeIdentity(agent, nodeB, { allowUnboundToken: true, logger: quiet() }),
    ).rejects.toThrow(`is bound to node ${nodeA}, but the agent was started for node ${nodeB}`);
    const unbound = new Client(
      new HttpTransport(await env.plane.serviceAccountKubeConfig(env.namespace, SA)),
    );
    await expect(
      verifyNodeIdentity(unbound, nodeA, { allowUnboundToken: false, logger: quiet() }),
    ).rejects.toThrow(NodeIdentityError);
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: { write: (line: string) => void lines.push(line) },
    });
    await verifyNodeIdentity(unbound, nodeA, { allowUnboundToken: true, logger });
    expect(lines.join('')).toContain('carries no node claim');
  });

  it('runs a whole cycle on node A with that token: reports, cordons, drains, reboots, no 403', async () => {
    const k = capstanProtocol.annotations;
    const dir = mkdtempSync(join(tmpdir(), 'capstan-agent-policy-'));
    const osRelease = join(dir, 'os-release');
    writeFileSync(osRelease, 'ID=flatcar\nVERSION=1.0.0\n');
    const web = await createPod('web-a2', nodeA);
    // The machine is not what is under test here: a rebooter that only counts.
    let reboots = 0;
    const running = startAgent({
      kubeConfig: await podBoundKubeConfig(env.kubeConfig, env.namespace, SA, 'capstan-agent-a'),
      nodeName: nodeA,
      source: new ManualSource({ rebootNeeded: true }),
      rebooter: { reboot: async () => void reboots++ },
      osReleasePath: osRelease,
      drainGracePeriodSeconds: 0,
      drainTimeoutMs: 20_000,
      failureBackoffMs: 60_000,
      podPollMs: 100,
    });
    try {
      const annotations = async () => (await admin.get(Node, { name: nodeA })).metadata.annotations ?? {};
      await eventually(async () => (await annotations())[k.rebootNeeded] === 'true', {
        what: 'the agent to ask for a reboot',
        timeoutMs: 20_000,
      });
      await patchNode(admin, nodeA, {
        metadata: {
          annotations: { [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: `${nodeA}-boot-1` },
        },
      });
      await eventually(async () => reboots === 1, { what: 'the reboot', timeoutMs: 30_000 });
      expect(await podState({ namespace: env.namespace, name: web.metadata.name ?? '' })).toBe('gone');
      // The agent's own DaemonSet pod is left in place (its token stays valid).
      expect(await podState({ namespace: env.namespace, name: 'capstan-agent-a' })).toBe('running');
      expect((await admin.get(Node, { name: nodeA })).spec?.unschedulable).toBe(true);
      expect((await annotations())[k.rebootInProgress]).toBe('true');
    } finally {
      const text = await running.manager.metrics.text();
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
      expect(await forbiddenCount(text)).toBe(0);
    }
  });
});

/** The string literals of a variable's CEL list in one of the policies. */
function policyList(policy: string, variable: string): string[] {
  const objects = readManifests(
    new URL('../deploy/admission-policy.yaml', import.meta.url).pathname,
  ) as Array<KubeObject & { spec: { variables?: Array<{ name: string; expression: string }> } }>;
  const found = objects.find((o) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata.name === policy);
  const expression = found?.spec.variables?.find((v) => v.name === variable)?.expression ?? '';
  expect(expression).toMatch(/^\[\s*'[^']+'(\s*,\s*'[^']+')*\s*\]$/);
  return [...expression.matchAll(/'([^']+)'/g)].map((m) => m[1] as string);
}

/** The keys the agent writes in `protocol`, from the protocol's constants. */
function agentKeys(protocol: Protocol) {
  const a = protocol.annotations;
  const l = protocol.labels;
  return {
    annotations: [
      a.rebootNeeded,
      a.rebootInProgress,
      a.status,
      a.newVersion,
      a.lastCheckedTime,
      a.agentMadeUnschedulable,
    ],
    labels: [l.rebootNeeded, l.id, l.version, l.group],
  };
}

describe('the policy’s key lists', () => {
  const ours = agentKeys(capstanProtocol);
  const fluo = agentKeys(fluoProtocol);

  it('are exactly the agent’s keys of both protocols, its failure and drain-start annotations', () => {
    expect(new Set(policyList('capstan-agent-nodes', 'agentAnnotations'))).toEqual(
      new Set([
        ...ours.annotations,
        AGENT_FAILURE_ANNOTATION,
        AGENT_DRAIN_STARTED_ANNOTATION,
        AGENT_SOURCE_ERROR_ANNOTATION,
        AGENT_TARGET_VERSION_ANNOTATION,
        AGENT_REBOOT_HISTORY_ANNOTATION,
        AGENT_QUARANTINED_ANNOTATION,
        ...fluo.annotations,
      ]),
    );
    expect(new Set(policyList('capstan-agent-nodes', 'agentLabels'))).toEqual(
      new Set([...ours.labels, ...fluo.labels]),
    );
  });

  it('name exactly the Node conditions the agent writes', () => {
    expect(new Set(policyList('capstan-agent-nodes', 'agentConditions'))).toEqual(
      new Set(AGENT_CONDITION_TYPES),
    );
  });

  it('hold none of the coordinator’s or the administrator’s keys', () => {
    const listed = new Set([
      ...policyList('capstan-agent-nodes', 'agentAnnotations'),
      ...policyList('capstan-agent-nodes', 'agentLabels'),
    ]);
    for (const p of [capstanProtocol, fluoProtocol]) {
      for (const key of [
        p.annotations.rebootOk,
        p.annotations.rebootPaused,
        p.labels.beforeReboot,
        p.labels.afterReboot,
      ])
        expect(listed.has(key), key).toBe(false);
    }
    for (const key of Object.values(coordinatorKeys)) expect(listed.has(key), key).toBe(false);
  });
});
