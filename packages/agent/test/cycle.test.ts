/**
 * The whole reboot cycle with the real D-Bus clients: a private dbus-daemon serving the fake
 * update_engine and the fake logind; the agent (under its service account) uses its default
 * UpdateEngineSource and Logind on that bus. The test plays the coordinator and the machine
 * (logind's onReboot hook: the agent process dies, the boot ID changes, a new agent starts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useControlPlane } from '@capstan/envtest/vitest';
import {
  AGENT_FAILURE_ANNOTATION,
  AGENT_QUARANTINED_ANNOTATION,
  AGENT_QUARANTINED_CONDITION,
  AGENT_TARGET_VERSION_ANNOTATION,
  capstanProtocol,
  coordinatorKeys,
  fluoProtocol,
  type Protocol,
} from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpdateStatus } from '../src/dbus/update-engine.js';
import { type RunningAgent, type StartAgentOptions, startAgent } from '../src/operator.js';
import { FakeLogind } from '../src/testing/fake-logind.js';
import { FakeUpdateEngine } from '../src/testing/fake-update-engine.js';
import { type PrivateBus, startPrivateBus } from '../src/testing/private-bus.js';
import {
  agentIdentity,
  annotate,
  createNode,
  forbiddenCount,
  nodeEvents,
  setBootID,
  uniqueName,
} from './helpers.js';

const env = useControlPlane('agent-cycle');
let admin: Client;
let agentKubeConfig: StartAgentOptions['kubeConfig'];
let dir: string;
let osRelease: string;
let bus: PrivateBus;
let engine: FakeUpdateEngine;
let logind: FakeLogind;
const running = new Set<RunningAgent>();

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  agentKubeConfig = await agentIdentity(env);
  dir = mkdtempSync(join(tmpdir(), 'capstan-agent-'));
  osRelease = join(dir, 'os-release');
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  writeFileSync(
    osRelease,
    'NAME="Flatcar Container Linux by Kinvolk"\nID=flatcar\nVERSION=3975.2.0\nVERSION_ID=3975.2.0\n',
  );
  bus = await startPrivateBus();
  engine = await FakeUpdateEngine.start({ address: bus.address });
  logind = await FakeLogind.start({ address: bus.address });
});
afterEach(async () => {
  for (const agent of running) await stopAgent(agent);
  await logind.stop();
  await engine.stop();
  await bus.stop();
});

function run(
  nodeName: string,
  protocol: 'capstan' | 'fluo',
  failureBackoffMs = 60_000,
  extra: Partial<StartAgentOptions> = {},
): RunningAgent {
  const agent = startAgent({
    kubeConfig: agentKubeConfig,
    nodeName,
    protocol,
    busAddress: bus.address,
    osReleasePath: osRelease,
    drainGracePeriodSeconds: 0,
    drainTimeoutMs: 20_000,
    failureBackoffMs,
    podPollMs: 100,
    ...extra,
  });
  running.add(agent);
  return agent;
}

async function stopAgent(agent: RunningAgent): Promise<void> {
  running.delete(agent);
  const text = await agent.manager.metrics.text();
  await agent.stop();
  expect(text).toMatch(/^rest_client_requests_total\{[^}]*code="200"[^}]*\} [1-9]/m);
  expect(await forbiddenCount(text)).toBe(0);
}

const annotations = async (name: string) => (await admin.get(Node, { name })).metadata.annotations ?? {};
const condition = async (name: string, type: string) =>
  (await admin.get(Node, { name })).status?.conditions?.find((c) => c.type === type);

describe.each([
  ['capstan', capstanProtocol],
  ['fluo', fluoProtocol],
] as Array<['capstan' | 'fluo', Protocol]>)('the full cycle over D-Bus, %s protocol', (name, protocol) => {
  const k = protocol.annotations;
  const l = protocol.labels;

  it('needed → granted → cordon, drain, Reboot → boot → cleared and uncordoned → grant withdrawn', async () => {
    const node = uniqueName(`cycle-${name}`);
    await createNode(admin, node, { bootID: 'boot-1' });
    let agent = run(node, name);

    // Reports what it sees: update_engine idle, the OS labels.
    const first = await eventually(
      async () => {
        const n = await admin.get(Node, { name: node });
        return n.metadata.annotations?.[k.status] === UpdateStatus.Idle ? n : undefined;
      },
      { what: 'first report', timeoutMs: 20_000 },
    );
    expect(first.metadata.annotations?.[k.rebootNeeded]).toBe('false');
    expect(first.metadata.labels?.[l.rebootNeeded]).toBe('false');
    expect(first.metadata.labels?.[l.id]).toBe('flatcar');
    expect(first.metadata.labels?.[l.version]).toBe('3975.2.0');

    // update_engine staged an update.
    engine.setStatus({
      operation: UpdateStatus.UpdatedNeedReboot,
      newVersion: '3975.2.1',
      lastCheckedTime: 1_700_000_000,
    });
    const asking = await eventually(
      async () => {
        const n = await admin.get(Node, { name: node });
        return n.metadata.annotations?.[k.rebootNeeded] === 'true' ? n : undefined;
      },
      { what: 'reboot-needed', timeoutMs: 20_000 },
    );
    expect(asking.metadata.labels?.[l.rebootNeeded]).toBe('true');
    expect(asking.metadata.annotations?.[k.status]).toBe(UpdateStatus.UpdatedNeedReboot);
    expect(asking.metadata.annotations?.[k.newVersion]).toBe('3975.2.1');
    expect(asking.metadata.annotations?.[k.lastCheckedTime]).toBe('1700000000');
    expect(asking.spec?.unschedulable).toBeUndefined();

    // The coordinator grants, fenced to this boot; logind's reboot is the machine going down.
    let rebooted!: () => void;
    const reboot = new Promise<void>((resolve) => {
      rebooted = resolve;
    });
    logind.onReboot(() => rebooted());
    await annotate(admin, node, { [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: 'boot-1' });
    await reboot;
    expect(logind.reboots).toEqual([{ method: 'Reboot', interactive: false }]);
    const down = await admin.get(Node, { name: node });
    expect(down.spec?.unschedulable).toBe(true);
    expect(down.metadata.annotations?.[k.rebootInProgress]).toBe('true');
    expect(down.metadata.annotations?.[k.agentMadeUnschedulable]).toBe('true');

    // The machine reboots: the agent dies, update_engine comes back idle, a new boot ID.
    await stopAgent(agent);
    await engine.stop();
    engine.status = { ...engine.status, currentOperation: UpdateStatus.Idle, newVersion: '' };
    await engine.start();
    writeFileSync(osRelease, 'ID=flatcar\nVERSION=3975.2.1\nVERSION_ID=3975.2.1\n');
    await setBootID(admin, node, 'boot-2');
    agent = run(node, name);

    const back = await eventually(
      async () => {
        const n = await admin.get(Node, { name: node });
        const a = n.metadata.annotations ?? {};
        // The OS labels may land in a later write than the clear (os-release is read at start).
        return a[k.rebootInProgress] === 'false' &&
          a[k.rebootNeeded] === 'false' &&
          n.spec?.unschedulable !== true &&
          n.metadata.labels?.[l.version] === '3975.2.1'
          ? n
          : undefined;
      },
      { what: 'cleared, uncordoned and labelled with the new version', timeoutMs: 20_000 },
    );
    expect(back.metadata.annotations?.[k.agentMadeUnschedulable]).toBe('false');
    // The booted version is the one it rebooted for: verified, the target dropped.
    expect(back.metadata.annotations?.[AGENT_TARGET_VERSION_ANNOTATION]).toBeUndefined();
    expect(back.metadata.labels?.[l.version]).toBe('3975.2.1');
    await eventually(async () => agent.agent.state.phase === 'AwaitingGrantClear', {
      what: 'the grant to go',
      timeoutMs: 20_000,
    });
    expect(logind.reboots).toHaveLength(1);

    // The coordinator verifies the new boot and withdraws the grant (FLUO writes "false").
    await annotate(admin, node, {
      [k.rebootOk]: protocol.withdraw === 'false' ? 'false' : null,
      [coordinatorKeys.grantedBootId]: null,
    });
    await eventually(async () => agent.agent.state.phase === 'Idle', { what: 'idle', timeoutMs: 20_000 });
    const done = await annotations(node);
    expect(done[k.rebootNeeded]).toBe('false');
    expect(done[k.status]).toBe(UpdateStatus.Idle);
    expect(logind.reboots).toHaveLength(1);
  });
});

describe('a reboot that logind refuses', () => {
  it('is reported (event, annotation, metric), the node stays cordoned and drained, and the reboot is retried', async () => {
    const k = capstanProtocol.annotations;
    const node = uniqueName('reboot-fails');
    await createNode(admin, node, { bootID: 'boot-1' });
    engine.setStatus({ operation: UpdateStatus.UpdatedNeedReboot, newVersion: '3975.2.1' });
    logind.failReboot({
      name: 'org.freedesktop.DBus.Error.AccessDenied',
      message: 'Access denied by polkit',
    });
    const agent = run(node, 'capstan', 3_000);
    await eventually(async () => (await annotations(node))[k.rebootNeeded] === 'true', {
      what: 'reboot-needed',
      timeoutMs: 20_000,
    });
    await annotate(admin, node, { [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: 'boot-1' });

    const failed = await eventually(
      async () => {
        const n = await admin.get(Node, { name: node });
        return n.metadata.annotations?.[AGENT_FAILURE_ANNOTATION]?.startsWith('RebootFailed ')
          ? n
          : undefined;
      },
      { what: 'the failure annotation', timeoutMs: 20_000 },
    );
    expect(failed.metadata.annotations?.[AGENT_FAILURE_ANNOTATION]).toContain('Access denied by polkit');
    // Kept as it is: cordoned, in progress, drained; not uncordoned to be drained again.
    expect(failed.spec?.unschedulable).toBe(true);
    expect(failed.metadata.annotations?.[k.rebootInProgress]).toBe('true');
    expect(failed.metadata.annotations?.[k.agentMadeUnschedulable]).toBe('true');
    expect(agent.agent.metrics.rebootFailures.value({ reason: 'dbus-error' })).toBe(1);
    expect(agent.agent.metrics.reboots.value()).toBe(0);
    expect(await agent.manager.metrics.text()).toMatch(
      /^capstan_agent_reboot_failures_total\{reason="dbus-error"\} 1$/m,
    );
    const event = await eventually(
      async () =>
        (await nodeEvents(admin, node)).find((e) => e.reason === 'RebootFailed' && e.type === 'Warning'),
      { what: 'the RebootFailed event', timeoutMs: 20_000 },
    );
    expect(event.note).toContain('Access denied by polkit');
    expect(event.note).toContain('the node stays cordoned and drained; retrying the reboot in 3s');
    expect(logind.reboots).toHaveLength(0);
    await eventually(async () => agent.agent.state.phase === 'Backoff', {
      what: 'backing off',
      timeoutMs: 20_000,
    });

    // logind accepts now: the retry reboots the node that stayed drained, with no new cycle.
    logind.failReboot(undefined);
    await eventually(async () => logind.reboots.length === 1, {
      what: 'the retried reboot',
      timeoutMs: 20_000,
    });
    const rebooting = await admin.get(Node, { name: node });
    expect(rebooting.spec?.unschedulable).toBe(true);
    expect(agent.agent.metrics.reboots.value()).toBe(1);
    const started = (await nodeEvents(admin, node)).filter((e) => e.reason === 'RebootCycleStarted');
    expect(started).toHaveLength(1);
  });
});

describe('a reboot into the wrong version', () => {
  it('fails verification: VersionMismatch reported, the node left in progress and cordoned', async () => {
    const k = capstanProtocol.annotations;
    const node = uniqueName('wrong-version');
    await createNode(admin, node, { bootID: 'boot-1' });
    engine.setStatus({ operation: UpdateStatus.UpdatedNeedReboot, newVersion: '3975.2.1' });
    let agent = run(node, 'capstan');
    await eventually(async () => (await annotations(node))[k.rebootNeeded] === 'true', {
      what: 'reboot-needed',
      timeoutMs: 20_000,
    });
    const reboot = new Promise<void>((resolve) => logind.onReboot(() => resolve()));
    await annotate(admin, node, { [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: 'boot-1' });
    await reboot;
    expect((await annotations(node))[AGENT_TARGET_VERSION_ANNOTATION]).toBe('3975.2.1');

    // The machine comes back on the old version (the update rolled back).
    await stopAgent(agent);
    await engine.stop();
    engine.status = { ...engine.status, currentOperation: UpdateStatus.Idle, newVersion: '' };
    await engine.start();
    await setBootID(admin, node, 'boot-2');
    agent = run(node, 'capstan');
    const failed = await eventually(
      async () => {
        const n = await admin.get(Node, { name: node });
        return n.metadata.annotations?.[AGENT_FAILURE_ANNOTATION]?.startsWith('VersionMismatch ')
          ? n
          : undefined;
      },
      { what: 'the VersionMismatch failure', timeoutMs: 20_000 },
    );
    expect(failed.metadata.annotations?.[AGENT_FAILURE_ANNOTATION]).toContain(
      'rebooted for version 3975.2.1, but booted 3975.2.0',
    );
    expect(failed.metadata.annotations?.[k.rebootInProgress]).toBe('true');
    expect(failed.metadata.annotations?.[k.rebootNeeded]).toBe('false');
    expect(failed.spec?.unschedulable).toBe(true);
    expect(agent.agent.metrics.versionMismatches.value()).toBe(1);
    const event = await eventually(
      async () => (await nodeEvents(admin, node)).find((e) => e.reason === 'VersionMismatch'),
      { what: 'the VersionMismatch event', timeoutMs: 20_000 },
    );
    expect(event.type).toBe('Warning');
    await eventually(async () => agent.agent.state.phase === 'AwaitingGrantClear', {
      what: 'waiting for the grant to go',
      timeoutMs: 20_000,
    });
    expect(logind.reboots).toHaveLength(1);

    // The coordinator (or an admin) withdraws the grant: the cycle ends, the cordon is lifted.
    await annotate(admin, node, { [k.rebootOk]: null, [coordinatorKeys.grantedBootId]: null });
    await eventually(
      async () => {
        const n = await admin.get(Node, { name: node });
        return n.metadata.annotations?.[k.rebootInProgress] === 'false' && n.spec?.unschedulable !== true;
      },
      { what: 'the cycle ended', timeoutMs: 20_000 },
    );
  });
});

describe('a source that keeps asking after every reboot', () => {
  it('is quarantined after N cycles: annotation, event, metric, condition; the node asks no more', async () => {
    const k = capstanProtocol.annotations;
    const node = uniqueName('looping');
    await createNode(admin, node, { bootID: 'boot-0' });
    engine.setStatus({ operation: UpdateStatus.UpdatedNeedReboot, newVersion: '' });
    const loop = { quarantineAfter: 2, quarantineWindowMs: 3_600_000 };
    let agent = run(node, 'capstan', 60_000, loop);
    for (let boot = 0; boot < 2; boot++) {
      await eventually(async () => (await annotations(node))[k.rebootNeeded] === 'true', {
        what: `reboot-needed before cycle ${boot + 1}`,
        timeoutMs: 20_000,
      });
      const reboot = new Promise<void>((resolve) => logind.onReboot(() => resolve()));
      await annotate(admin, node, { [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: `boot-${boot}` });
      await reboot;
      // The machine reboots; update_engine still says NEED_REBOOT (the loop).
      await stopAgent(agent);
      await setBootID(admin, node, `boot-${boot + 1}`);
      agent = run(node, 'capstan', 60_000, loop);
      await eventually(async () => agent.agent.state.phase === 'AwaitingGrantClear', {
        what: `back from cycle ${boot + 1}`,
        timeoutMs: 20_000,
      });
      await annotate(admin, node, { [k.rebootOk]: null, [coordinatorKeys.grantedBootId]: null });
    }
    const quarantined = await eventually(
      async () => (await annotations(node))[AGENT_QUARANTINED_ANNOTATION],
      { what: 'the quarantine', timeoutMs: 20_000 },
    );
    expect(quarantined).toContain('2 reboot cycles within 1h0m0s and the source still asks for a reboot');
    expect((await annotations(node))[k.rebootNeeded]).toBe('false');
    expect(logind.reboots).toHaveLength(2);
    const event = await eventually(
      async () => (await nodeEvents(admin, node)).find((e) => e.reason === 'Quarantined'),
      { what: 'the Quarantined event', timeoutMs: 20_000 },
    );
    expect(event.type).toBe('Warning');
    await eventually(async () => /^capstan_agent_quarantined 1$/m.test(await agent.manager.metrics.text()), {
      what: 'the quarantined metric',
      timeoutMs: 10_000,
    });
    const set = await eventually(
      async () => {
        const c = await condition(node, AGENT_QUARANTINED_CONDITION);
        return c?.status === 'True' ? c : undefined;
      },
      { what: `the ${AGENT_QUARANTINED_CONDITION} condition`, timeoutMs: 10_000 },
    );
    expect(set).toMatchObject({ reason: 'RebootLoop', message: expect.stringContaining(quarantined) });

    // An administrator clears it: the node asks again, and the condition says it ended.
    await annotate(admin, node, { [AGENT_QUARANTINED_ANNOTATION]: null });
    await eventually(async () => (await annotations(node))[k.rebootNeeded] === 'true', {
      what: 'asking again once cleared',
      timeoutMs: 20_000,
    });
    const cleared = await eventually(
      async () => {
        const c = await condition(node, AGENT_QUARANTINED_CONDITION);
        return c?.status === 'False' ? c : undefined;
      },
      { what: `the ${AGENT_QUARANTINED_CONDITION} condition cleared`, timeoutMs: 10_000 },
    );
    expect(cleared.reason).toBe('QuarantineCleared');
    expect(Date.parse(cleared.lastTransitionTime ?? '')).toBeGreaterThanOrEqual(
      Date.parse(set.lastTransitionTime ?? ''),
    );
  });
});
