/**
 * The agent on a whole simulated cluster (envtest with kube-scheduler, kwok nodes and the
 * disruption, deployment, replicaset, daemonset and garbage-collector controllers), running under
 * its own service account with the RBAC of deploy/rbac.yaml, rebooting through the real Logind
 * client against a fake logind on a private dbus-daemon. The scheduler binds the pods, kwok runs
 * them and reboots the nodes (NotReady, then Ready with a new boot ID); the test plays only the
 * coordinator (reboot-ok + granted boot id).
 */
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { AGENT_FAILURE_ANNOTATION, capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client, parseStandardOptions } from '@capstan/runtime';
import { DaemonSet, HttpTransport, Node, Pod } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AgentFlags, addAgentFlags, agentOptionsFromFlags } from '../src/flags.js';
import { type RunningAgent, type StartAgentOptions, startAgent } from '../src/operator.js';
import { FakeLogind } from '../src/testing/fake-logind.js';
import { type PrivateBus, startPrivateBus } from '../src/testing/private-bus.js';
import {
  agentIdentity,
  annotate,
  forbiddenCount,
  isRunning,
  loadManifest,
  ManualSource,
  nodeEvents,
  pooledDeployment,
  runningPods,
  sleep,
  uniqueName,
} from './helpers.js';

const env = useOwnControlPlane({ controllerManager: true, scheduler: true, kwok: true }, 'agent-drain');
const k = capstanProtocol.annotations;
let admin: Client;
let agentKubeConfig: StartAgentOptions['kubeConfig'];
let bus: PrivateBus;
let logind: FakeLogind;
const agents: RunningAgent[] = [];

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  agentKubeConfig = await agentIdentity(env);
  bus = await startPrivateBus();
});
afterAll(async () => {
  await bus?.stop();
});
beforeEach(async () => {
  logind = await FakeLogind.start({ address: bus.address });
});
afterEach(async () => {
  for (const agent of agents.splice(0)) {
    const text = await agent.manager.metrics.text();
    await agent.stop();
    // The agent's own identity never hit a 403 (deploy/rbac.yaml is enough).
    expect(text).toMatch(/^rest_client_requests_total\{[^}]*code="200"[^}]*\} [1-9]/m);
    expect(await forbiddenCount(text)).toBe(0);
  }
  await logind.stop();
});

function run(nodeName: string, source: ManualSource, extra: Partial<StartAgentOptions> = {}): RunningAgent {
  const agent = startAgent({
    kubeConfig: agentKubeConfig,
    nodeName,
    source,
    busAddress: bus.address,
    osReleasePath: '/nonexistent/os-release',
    drainGracePeriodSeconds: 0,
    drainTimeoutMs: 30_000,
    evictionRetryMinMs: 100,
    evictionRetryMaxMs: 400,
    podPollMs: 100,
    failureBackoffMs: 60_000,
    ...extra,
  });
  agents.push(agent);
  return agent;
}

const getNode = (name: string) => admin.get(Node, { name });
const grant = (name: string, bootID: string) =>
  annotate(admin, name, { [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: bootID });

const deployment = (name: string, pool: string, replicas: number, minAvailable: number) =>
  pooledDeployment(admin, env.namespace, { name, pool, replicas, minAvailable });
const running = (app: string, node: string, count: number, allowed: number) =>
  runningPods(admin, env.namespace, { app, node, count, allowed });

describe('drain through the Eviction API', () => {
  it('evicts Deployment pods one at a time as the PDB allows, skips DaemonSet and mirror pods, then reboots', async () => {
    const pool = uniqueName('pool');
    const node = uniqueName('drain-node');
    const elsewhere = uniqueName('other-node');
    // The other node starts cordoned, so all three pods land on `node`.
    await env.plane.addNodes([
      { name: node, bootID: 'boot-1', labels: { pool } },
      { name: elsewhere, labels: { pool }, unschedulable: true },
    ]);
    await deployment('web', pool, 3, 2);
    const webPods = await running('web', node, 3, 1);

    // A DaemonSet, whose controller puts a pod on both nodes (cordoned or not), and a static pod's mirror.
    await admin.create(DaemonSet, {
      metadata: { name: 'node-agent', namespace: env.namespace },
      spec: {
        selector: { matchLabels: { app: 'node-agent' } },
        template: {
          metadata: { labels: { app: 'node-agent' } },
          spec: { nodeSelector: { pool }, containers: [{ name: 'c', image: 'registry.invalid/ds:1' }] },
        },
      },
    });
    const [dsPod] = await eventually(
      async () => {
        const { items } = await admin.list(Pod, {
          namespace: env.namespace,
          labelSelector: 'app=node-agent',
        });
        const up = items.filter(isRunning);
        return up.length === 2 ? up.filter((p) => p.spec?.nodeName === node) : undefined;
      },
      { what: 'a running DaemonSet pod on each node', timeoutMs: 30_000 },
    );
    await admin.create(Pod, {
      metadata: {
        name: `static-${node}`,
        namespace: env.namespace,
        annotations: { 'kubernetes.io/config.mirror': 'abc123' },
      },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'registry.invalid/static:1' }] },
    });
    const source = new ManualSource({ rebootNeeded: true });
    const agent = run(node, source);
    await eventually(async () => (await getNode(node)).metadata.annotations?.[k.rebootNeeded] === 'true', {
      what: 'reboot-needed reported',
      timeoutMs: 20_000,
    });
    expect((await getNode(node)).metadata.labels?.[capstanProtocol.labels.rebootNeeded]).toBe('true');
    expect(logind.reboots).toHaveLength(0);

    await grant(node, 'boot-1');
    // The other node stays cordoned until the PDB has refused an eviction: the first eviction's
    // replacement cannot run, so the budget is spent and the next eviction must wait (429). Only
    // then do the replacements get somewhere to go, and the drain goes on.
    await eventually(async () => agent.agent.metrics.evictions.value({ result: 'blocked' }) >= 1, {
      what: 'an eviction the PDB refused',
      timeoutMs: 30_000,
    });
    expect(logind.reboots).toHaveLength(0);
    await admin.patch(Node, { name: elsewhere }, 'merge', { spec: { unschedulable: null } });
    await eventually(async () => logind.reboots.length === 1, { what: 'the reboot', timeoutMs: 30_000 });

    const after = await getNode(node);
    expect(after.spec?.unschedulable).toBe(true);
    expect(after.metadata.annotations?.[k.rebootInProgress]).toBe('true');
    expect(after.metadata.annotations?.[k.agentMadeUnschedulable]).toBe('true');
    expect(logind.reboots).toEqual([{ method: 'Reboot', interactive: false }]);

    // Every original web pod is gone; the PDB refused at least once (429) and the drain went on.
    const { items } = await admin.list(Pod, { namespace: env.namespace });
    const names = new Set(items.map((p) => p.metadata.name));
    for (const pod of webPods) expect(names.has(pod.metadata.name)).toBe(false);
    expect(
      items
        .filter((p) => p.spec?.nodeName === node)
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual([dsPod?.metadata.name, `static-${node}`].sort());
    // The evicted pods' replacements were scheduled onto the other node and run there.
    const web = await running('web', elsewhere, 3, 1);
    expect(web.every((p) => !webPods.some((old) => old.metadata.name === p.metadata.name))).toBe(true);
    expect(agent.agent.metrics.evictions.value({ result: 'blocked' })).toBeGreaterThanOrEqual(1);
    expect(agent.agent.metrics.evictions.value({ result: 'evicted' })).toBe(3);
    expect(agent.agent.metrics.reboots.value()).toBe(1);
    expect(agent.agent.state.phase).toBe('Rebooting');
    const events = await eventually(
      async () => {
        const list = await nodeEvents(admin, node);
        return list.some((e) => e.reason === 'Rebooting') ? list : undefined;
      },
      { what: 'events', timeoutMs: 20_000 },
    );
    expect(events.map((e) => e.reason)).toEqual(
      expect.arrayContaining(['RebootCycleStarted', 'EvictionBlocked', 'Rebooting']),
    );
  });

  it('a drain that times out (a PDB that never allows) does not reboot, uncordons, reports, and does not retry at once', async () => {
    const pool = uniqueName('pool');
    const node = uniqueName('stuck-node');
    await env.plane.addNodes([{ name: node, bootID: 'boot-1', labels: { pool } }]);
    await deployment('db', pool, 2, 2);
    await running('db', node, 2, 0);

    const agent = run(node, new ManualSource({ rebootNeeded: true }), { drainTimeoutMs: 1_500 });
    await eventually(async () => (await getNode(node)).metadata.annotations?.[k.rebootNeeded] === 'true', {
      what: 'reboot-needed reported',
      timeoutMs: 20_000,
    });
    await grant(node, 'boot-1');
    await eventually(async () => (await getNode(node)).spec?.unschedulable === true, {
      what: 'the cordon',
      timeoutMs: 20_000,
    });

    const failed = await eventually(
      async () => {
        const n = await getNode(node);
        return n.metadata.annotations?.[AGENT_FAILURE_ANNOTATION]?.startsWith('DrainFailed ') ? n : undefined;
      },
      { what: 'the drain failure', timeoutMs: 20_000 },
    );
    expect(failed.metadata.annotations?.[AGENT_FAILURE_ANNOTATION]).toMatch(/2 pod\(s\) left/);
    expect(failed.spec?.unschedulable).toBeUndefined();
    expect(failed.metadata.annotations?.[k.rebootInProgress]).toBe('false');
    expect(failed.metadata.annotations?.[k.agentMadeUnschedulable]).toBe('false');
    expect(agent.agent.metrics.drainFailures.value()).toBe(1);
    expect(agent.agent.metrics.evictions.value({ result: 'evicted' })).toBe(0);
    const events = await eventually(
      async () => {
        const list = await nodeEvents(admin, node);
        return list.find((e) => e.reason === 'DrainFailed' && e.type === 'Warning');
      },
      { what: 'the DrainFailed event', timeoutMs: 20_000 },
    );
    expect(events.note).toMatch(/not rebooting, uncordoned the node/);
    expect(await forbiddenCount(await agent.manager.metrics.text())).toBe(0);

    // The grant still stands, but the agent backs off instead of cordoning again in a loop.
    const attempts = agent.agent.metrics.evictions.total();
    await sleep(1_500);
    expect(agent.agent.state.phase).toBe('Backoff');
    expect((await getNode(node)).spec?.unschedulable).toBeUndefined();
    expect(agent.agent.metrics.evictions.total()).toBe(attempts);
    expect(logind.reboots).toHaveLength(0);
    const pods = await admin.list(Pod, { namespace: env.namespace, labelSelector: 'app=db' });
    expect(pods.items).toHaveLength(2);
  });
});

describe('boots and grants', () => {
  it("after a reboot, keeps an administrator's earlier cordon and waits for the grant to be withdrawn", async () => {
    const node = uniqueName('admin-cordoned');
    await env.plane.addNodes([{ name: node, bootID: 'boot-1', unschedulable: true }]);
    const source = new ManualSource({ rebootNeeded: true });
    const first = run(node, source);
    await eventually(async () => (await getNode(node)).metadata.annotations?.[k.rebootNeeded] === 'true', {
      what: 'reboot-needed reported',
      timeoutMs: 20_000,
    });
    await grant(node, 'boot-1');
    await eventually(async () => logind.reboots.length === 1, { what: 'the reboot', timeoutMs: 20_000 });
    const during = await getNode(node);
    expect(during.metadata.annotations?.[k.agentMadeUnschedulable]).toBe('false');
    expect(during.metadata.annotations?.[k.rebootInProgress]).toBe('true');

    // The machine reboots: the agent process dies, the node goes NotReady and comes back with a new boot ID.
    await first.stop();
    agents.splice(agents.indexOf(first), 1);
    const bootID = await env.plane.rebootNode(node);
    expect((await getNode(node)).status?.nodeInfo?.bootID).toBe(bootID);
    source.set({ rebootNeeded: false });
    const second = run(node, source);

    const booted = await eventually(
      async () => {
        const n = await getNode(node);
        const a = n.metadata.annotations ?? {};
        return a[k.rebootNeeded] === 'false' && a[k.rebootInProgress] === 'false' ? n : undefined;
      },
      { what: 'needed and in-progress cleared', timeoutMs: 20_000 },
    );
    expect(booted.spec?.unschedulable).toBe(true); // the administrator's cordon stays
    await eventually(async () => second.agent.state.phase === 'AwaitingGrantClear', {
      what: 'the grant to go',
      timeoutMs: 20_000,
    });

    await annotate(admin, node, { [k.rebootOk]: null, [coordinatorKeys.grantedBootId]: null });
    await eventually(async () => second.agent.state.phase === 'Idle', { what: 'idle', timeoutMs: 20_000 });
    const idle = await getNode(node);
    expect(idle.spec?.unschedulable).toBe(true);
    expect(logind.reboots).toHaveLength(1);
  });

  it('never acts on a stale grant (granted boot id is not the current boot), at start or later', async () => {
    const node = uniqueName('stale-grant');
    await env.plane.addNodes([
      {
        name: node,
        bootID: 'boot-new',
        annotations: {
          [k.rebootOk]: 'true',
          [k.rebootNeeded]: 'true',
          [coordinatorKeys.grantedBootId]: 'boot-old',
        },
      },
    ]);
    const source = new ManualSource({ rebootNeeded: true });
    const agent = run(node, source);
    await eventually(async () => agent.agent.state.phase === 'AwaitingGrantClear', {
      what: 'awaiting the grant to clear',
      timeoutMs: 20_000,
    });
    await sleep(500);
    let n = await getNode(node);
    expect(n.spec?.unschedulable).toBeUndefined();
    expect(n.metadata.annotations?.[k.rebootInProgress]).toBe('false');
    expect(n.metadata.annotations?.[k.rebootNeeded]).toBe('false'); // not asking while a grant is pending
    expect(logind.reboots).toHaveLength(0);

    // The coordinator withdraws it; the node asks again; a grant fenced to another boot is ignored.
    await annotate(admin, node, { [k.rebootOk]: null, [coordinatorKeys.grantedBootId]: null });
    await eventually(async () => (await getNode(node)).metadata.annotations?.[k.rebootNeeded] === 'true', {
      what: 'asking again',
      timeoutMs: 20_000,
    });
    await grant(node, 'boot-older');
    await eventually(async () => agent.agent.state.why.includes('stale grant'), {
      what: 'stale grant seen',
      timeoutMs: 20_000,
    });
    await sleep(500);
    n = await getNode(node);
    expect(n.spec?.unschedulable).toBeUndefined();
    expect(n.metadata.annotations?.[k.rebootInProgress]).toBe('false');
    expect(logind.reboots).toHaveLength(0);

    // Fenced to this boot, it is acted on.
    await grant(node, 'boot-new');
    await eventually(async () => logind.reboots.length === 1, { what: 'the reboot', timeoutMs: 20_000 });
    expect((await getNode(node)).spec?.unschedulable).toBe(true);
  });
});

describe('deploy/daemonset.yaml', () => {
  it('is accepted by the API server and runs the agent as root with the host bus, on every node', async () => {
    const [manifest] = loadManifest('daemonset.yaml', env.namespace);
    await env.plane.createObjects([manifest!], { ignoreExisting: true });
    const ds = await admin.get(DaemonSet, { namespace: env.namespace, name: 'capstan-agent' });
    // The DaemonSet controller puts the agent on every node (it tolerates every taint and the
    // cordon), and kwok runs it there.
    const { items: nodes } = await admin.list(Node);
    const agentsRunning = await eventually(
      async () => {
        const { items } = await admin.list(Pod, {
          namespace: env.namespace,
          labelSelector: Object.entries(ds.spec?.selector?.matchLabels ?? {})
            .map(([key, value]) => `${key}=${value}`)
            .join(','),
        });
        const up = items.filter(isRunning);
        return up.length === nodes.length ? up : undefined;
      },
      { what: 'an agent pod running on every node', timeoutMs: 30_000 },
    );
    expect(new Set(agentsRunning.map((p) => p.spec?.nodeName))).toEqual(
      new Set(nodes.map((n) => n.metadata.name)),
    );
    interface Spec {
      serviceAccountName: string;
      tolerations: unknown[];
      containers: Array<{ args: string[]; env: unknown[]; securityContext: { runAsUser: number } }>;
      volumes: Array<{ name: string; hostPath: { path: string } }>;
    }
    const spec = ds.spec?.template.spec as unknown as Spec;
    expect(spec.serviceAccountName).toBe('capstan-agent');
    expect(spec.tolerations).toEqual([{ operator: 'Exists' }]);
    const container = spec.containers[0]!;
    expect(container.securityContext.runAsUser).toBe(0);
    expect(container.env).toContainEqual({
      name: 'NODE_NAME',
      valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } },
    });
    const mounts = Object.fromEntries(
      (spec.volumes as Array<{ name: string; hostPath: { path: string } }>).map((v) => [
        v.name,
        v.hostPath.path,
      ]),
    );
    expect(mounts).toEqual({ dbus: '/var/run/dbus', 'os-release': '/etc/os-release' });

    // Its arguments are flags the agent understands.
    // (NODE_NAME comes from the downward API; given here as the flag it defaults.)
    const { extra } = parseStandardOptions<AgentFlags>([...container.args, '--node-name=from-downward-api'], {
      name: 'capstan-agent',
      extend: addAgentFlags,
      exit: (code) => {
        throw new Error(`exit ${code}`);
      },
    });
    expect(agentOptionsFromFlags(extra)).toMatchObject({
      protocol: 'capstan',
      osReleasePath: '/host/etc/os-release',
      drainTimeoutMs: 600_000,
    });
  });
});
