/**
 * The reboot methods besides logind, with real processes: a command run through nsenter (in the
 * test's own namespaces: the argv is the one the agent runs on a host) and a signal to a process
 * standing in for PID 1 (a shell that traps SIGRTMIN+5, as systemd does). Each reboots a granted
 * node through the agent, against the real API server, the need read from the fake update_engine
 * on a private dbus-daemon, where the fake logind is never asked; a failure is a RebootFailedError.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client, parseStandardOptions } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RebootFailedError } from '../src/dbus/reboot-failed-error.js';
import { UpdateStatus } from '../src/dbus/update-engine.js';
import { type AgentFlags, addAgentFlags, agentOptionsFromFlags } from '../src/flags.js';
import { CommandRebooter, type Rebooter, SignalRebooter } from '../src/index.js';
import { startAgent } from '../src/operator.js';
import { FakeLogind } from '../src/testing/fake-logind.js';
import { FakeUpdateEngine } from '../src/testing/fake-update-engine.js';
import { startPrivateBus } from '../src/testing/private-bus.js';
import { agentIdentity, annotate, createNode, uniqueName } from './helpers.js';

const env = useControlPlane('agent-reboot-methods');
let admin: Client;
let dir: string;
beforeAll(() => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  dir = mkdtempSync(join(tmpdir(), 'capstan-reboot-methods-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A shell that, like systemd, reboots (here: writes `marker`) on SIGRTMIN+5 (39). */
async function fakeInit(marker: string): Promise<ChildProcess> {
  const init = spawn(
    'bash',
    ['-c', `trap 'echo rebooted > ${marker}; exit 0' 39; echo ready; while :; do sleep 0.05; done`],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  await new Promise((resolve) => init.stdout?.once('data', resolve));
  return init;
}

/** A host-side reboot script that records it ran, or fails with `exit 1` and a message. */
function rebootScript(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('the signal method', () => {
  it('sends SIGRTMIN+5 to the init process; a missing one or the agent itself is a RebootFailedError', async () => {
    const marker = join(dir, 'signalled');
    const init = await fakeInit(marker);
    const exited = new Promise((resolve) => init.once('exit', resolve));
    await new SignalRebooter({ targetPid: init.pid as number }).reboot();
    await eventually(() => existsSync(marker), { what: 'the signal handled', timeoutMs: 5_000 });
    await exited;
    const gone = await new SignalRebooter({ targetPid: init.pid as number })
      .reboot()
      .catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(RebootFailedError);
    expect(gone).toMatchObject({ reason: 'signal-failed', message: expect.stringMatching(/ESRCH/) });
    const self = await new SignalRebooter({ targetPid: process.pid }).reboot().catch((e: unknown) => e);
    expect(self).toMatchObject({ reason: 'signal-failed', message: expect.stringMatching(/needs hostPID/) });
  });
});

describe('the command method', () => {
  it('runs the command through nsenter; a non-zero exit is a RebootFailedError with its stderr', async () => {
    const marker = join(dir, 'commanded');
    const ok = new CommandRebooter({
      command: [rebootScript('reboot-ok', `echo "$@" > ${marker}`), 'reboot'],
      hostNamespaces: { targetPid: process.pid },
    });
    expect(ok.commandLine.slice(0, 3)).toEqual(['nsenter', '--target', String(process.pid)]);
    await ok.reboot();
    expect(readFileSync(marker, 'utf8')).toBe('reboot\n');
    const refused = new CommandRebooter({
      command: [rebootScript('reboot-refused', 'echo "Failed to reboot: Access denied" >&2; exit 1')],
      hostNamespaces: { targetPid: process.pid },
    });
    const err = await refused.reboot().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RebootFailedError);
    expect(err).toMatchObject({
      reason: 'command-failed',
      message: expect.stringMatching(/exited 1: Failed to reboot: Access denied$/),
    });
  });
});

describe('the flags', () => {
  it('select the method: logind by default, systemctl reboot on the host, SIGRTMIN+5 to PID 1', () => {
    const parse = (argv: string[]) =>
      agentOptionsFromFlags({
        ...parseStandardOptions<AgentFlags>(['--node-name=n', ...argv], { name: 'a', extend: addAgentFlags })
          .extra,
        bootIdPath: '/proc/sys/kernel/random/boot_id',
      });
    expect(parse([]).rebooter).toBeUndefined();
    const command = parse(['--reboot-method=command']).rebooter as CommandRebooter;
    expect(command.commandLine).toEqual([
      'nsenter',
      '--target',
      '1',
      '--mount',
      '--uts',
      '--ipc',
      '--net',
      '--pid',
      '--',
      'systemctl',
      'reboot',
    ]);
    const signal = parse(['--reboot-method=signal']).rebooter as SignalRebooter;
    expect([signal.signal, signal.targetPid]).toEqual([39, 1]);
    expect(() => parse(['--reboot-method=kexec'])).toThrow();
    expect(() => parse(['--reboot-method=signal', '--reboot-signal=99'])).toThrow();
  });
});

/** A rebooter of each method whose "reboot" writes `marker`, and what to clean up after. */
const METHODS: Record<string, (marker: string) => Promise<{ rebooter: Rebooter; stop: () => void }>> = {
  signal: async (marker) => {
    const init = await fakeInit(marker);
    return {
      rebooter: new SignalRebooter({ targetPid: init.pid as number }),
      stop: () => init.kill('SIGKILL'),
    };
  },
  command: async (marker) => ({
    rebooter: new CommandRebooter({
      command: [rebootScript('host-reboot', `touch ${marker}`)],
      hostNamespaces: { targetPid: process.pid },
    }),
    stop: () => {},
  }),
};

describe.each(Object.keys(METHODS))('a granted node rebooted by the %s method', (method) => {
  it('is cordoned and rebooted through that path', async () => {
    const k = capstanProtocol.annotations;
    const node = uniqueName(`method-${method}`);
    await createNode(admin, node, { bootID: 'boot-1' });
    const marker = join(dir, `${method}-rebooted`);
    const make = METHODS[method];
    if (!make) throw new Error(`no method ${method}`);
    const { rebooter, stop } = await make(marker);
    const bootId = join(dir, `${method}-boot-id`);
    writeFileSync(bootId, 'boot-1\n');
    const bus = await startPrivateBus();
    const engine = await FakeUpdateEngine.start({ address: bus.address });
    const logind = await FakeLogind.start({ address: bus.address });
    engine.setStatus({ operation: UpdateStatus.UpdatedNeedReboot, newVersion: '' });
    const running = startAgent({
      kubeConfig: await agentIdentity(env),
      nodeName: node,
      busAddress: bus.address,
      rebooter,
      bootIdPath: bootId,
      osReleasePath: join(dir, 'none'),
    });
    try {
      await eventually(async () => running.agent.state.phase === 'Idle', { what: 'idle', timeoutMs: 20_000 });
      await annotate(admin, node, { [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: 'boot-1' });
      await eventually(async () => running.agent.state.phase === 'Rebooting', {
        what: 'rebooting',
        timeoutMs: 20_000,
      });
      await eventually(() => existsSync(marker), { what: `the ${method} reboot`, timeoutMs: 5_000 });
      // The host command writes the marker before it returns, and the agent counts the reboot
      // when it has returned: the count follows the marker by a moment.
      await eventually(() => running.agent.metrics.reboots.value() === 1, {
        what: 'the reboot counted',
        timeoutMs: 5_000,
      });
      expect(running.agent.metrics.reboots.value()).toBe(1);
      expect((await admin.get(Node, { name: node })).spec?.unschedulable).toBe(true);
      expect(logind.reboots).toHaveLength(0);
    } finally {
      await running.stop();
      stop();
      await logind.stop();
      await engine.stop();
      await bus.stop();
    }
  }, 60_000);
});
