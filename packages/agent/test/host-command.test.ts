/**
 * The sentinel command on the host: nsenter into a host process's namespaces, with the exit-code
 * meanings of RHEL's `needs-restarting -r` (1: needed, 0: not) and Fedora CoreOS's
 * `rpm-ostree status --pending-exit-77` (77: a deployment is staged, 0: not). The "host" is a
 * process the test starts in a mount namespace of its own, with a tmpfs only it sees holding the
 * host-side scripts: the command can only have run there. Needs root (setns), as the agent does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStandardOptions } from '@capstan/runtime';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AgentFlags, addAgentFlags, sourceFromFlags } from '../src/flags.js';
import { hostArgv } from '../src/host-namespaces.js';
import { exitVerdict, SentinelCommandSource } from '../src/sources/sentinel-command-source.js';
import { recorder, waitFor } from './dbus/helpers.js';

let dir: string;
let hostRoot: string;
let host: ChildProcess;
let source: SentinelCommandSource | undefined;

/** Starts the "host": a process in a new mount namespace with a tmpfs at `hostRoot` holding the scripts. */
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-host-command-'));
  hostRoot = join(dir, 'host');
  mkdirSync(hostRoot);
  const script = (name: string, body: string) =>
    `printf '#!/bin/sh\\n${body}\\n' > ${hostRoot}/${name} && chmod +x ${hostRoot}/${name}`;
  const setup = [
    `mount -t tmpfs tmpfs ${hostRoot}`,
    // needs-restarting -r: 1 while a reboot is needed (the host's marker), 0 otherwise.
    script(
      'needs-restarting',
      `[ "$1" = -r ] || exit 2; [ -e ${hostRoot}/updated-kernel ] && exit 1; exit 0`,
    ),
    // rpm-ostree status --pending-exit-77: 77 while a deployment is staged.
    script(
      'rpm-ostree',
      `[ "$2" = --pending-exit-77 ] || exit 2; [ -e ${hostRoot}/staged ] && exit 77; exit 0`,
    ),
    script('mark', `touch ${hostRoot}/$1`),
    'echo ready',
    'exec sleep 600',
  ].join(' && ');
  host = spawn('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', setup], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  host.stderr?.on('data', (d: Buffer) => {
    errors += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    host.stdout?.once('data', () => resolve());
    host.once('exit', (code) =>
      reject(new Error(`the test's host namespace did not start (exit ${code}; needs root): ${errors}`)),
    );
  });
});
afterEach(async () => {
  await source?.stop();
  source = undefined;
});
afterAll(() => {
  host?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a command on the test's host, as an admin on the node would. */
function onHost(...command: string[]): Promise<number | null> {
  const child = spawn('nsenter', hostArgv(command, { targetPid: host.pid as number }).slice(1), {
    stdio: 'ignore',
  });
  return new Promise((resolve) => child.once('close', resolve));
}

/** What nsenter is told to enter, in order, before the command. */
const NAMESPACES = ['--mount', '--uts', '--ipc', '--net', '--pid', '--'];

/** A sentinel command run on the test's host; `needed` exit codes, 0 for "not needed". */
function onHostSource(command: string[], needed: number): SentinelCommandSource {
  source = new SentinelCommandSource({
    command,
    hostNamespaces: { targetPid: host.pid as number },
    neededExitCodes: [needed],
    notNeededExitCodes: [0],
    intervalMs: 50,
  });
  return source;
}

describe('the sentinel command in the host namespaces', () => {
  it("runs what only the host has: RHEL's needs-restarting -r (1: needed, 0: not)", async () => {
    expect(existsSync(join(hostRoot, 'needs-restarting'))).toBe(false); // not in the agent's view
    const started = onHostSource([join(hostRoot, 'needs-restarting'), '-r'], 1);
    expect(started.commandLine.slice(0, 9)).toEqual(['nsenter', '--target', String(host.pid), ...NAMESPACES]);
    const rec = recorder();
    await started.start(rec.onChange);
    expect(rec.statuses).toEqual([{ rebootNeeded: false }]);
    expect(await onHost(join(hostRoot, 'mark'), 'updated-kernel')).toBe(0);
    await waitFor('a reboot needed on the host', rec.last, (s) => s?.rebootNeeded === true);
    expect(rec.last()).toEqual({ rebootNeeded: true });
  });

  it("Fedora CoreOS's rpm-ostree status --pending-exit-77 (77: staged)", async () => {
    const started = onHostSource([join(hostRoot, 'rpm-ostree'), 'status', '--pending-exit-77'], 77);
    const rec = recorder();
    await started.start(rec.onChange);
    expect(rec.statuses).toEqual([{ rebootNeeded: false }]);
    await onHost(join(hostRoot, 'mark'), 'staged');
    await waitFor('a staged deployment', rec.last, (s) => s?.rebootNeeded === true);
  });

  it('a command the host lacks (nsenter exits 127) is an error, not "no reboot"', async () => {
    const started = onHostSource([join(hostRoot, 'no-such-tool')], 1);
    const rec = recorder();
    await started.start(rec.onChange);
    expect(rec.last()).toEqual({
      rebootNeeded: false,
      error: expect.stringMatching(/exited 127: neither "needed" \(1\) nor "not needed" \(0\).*not found/),
    });
  });

  it('the RHEL flags build it: nsenter into PID 1, needed 1, not needed 0', () => {
    const { extra } = parseStandardOptions<AgentFlags>(
      [
        '--source=command',
        '--reboot-sentinel-command=needs-restarting -r',
        '--sentinel-host-namespaces',
        '--reboot-sentinel-needed-exit-codes=1',
        '--reboot-sentinel-not-needed-exit-codes=0',
      ],
      { name: 'capstan-agent', extend: addAgentFlags },
    );
    const built = sourceFromFlags(extra) as SentinelCommandSource;
    expect(built.commandLine).toEqual(['nsenter', '--target', '1', ...NAMESPACES, 'needs-restarting', '-r']);
    expect(() => sourceFromFlags({ ...extra, rebootSentinelNotNeededExitCodes: [1] })).toThrow(
      'exit code(s) 1 cannot mean both "needed" and "not needed"',
    );
    expect(() => sourceFromFlags({ ...extra, source: 'file' })).toThrow(/only to --source command/);
  });
});

describe('sentinel command decisions (properties)', () => {
  const code = fc.integer({ min: 0, max: 255 });
  it('an exit code is needed iff listed; else not needed unless a not-needed list leaves it out', () => {
    fc.assert(
      fc.property(
        code,
        fc.array(code),
        fc.option(fc.array(code), { nil: undefined }),
        (c, needed, notNeeded) => {
          const v = exitVerdict(c, needed, notNeeded);
          if (needed.includes(c)) expect(v).toBe('needed');
          else if (notNeeded === undefined || notNeeded.includes(c)) expect(v).toBe('not-needed');
          else expect(v).toBe('unexpected');
        },
      ),
    );
  });

  it('the argv is the command itself, or nsenter into the target with every namespace, then the command', () => {
    const word = fc.string({ minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1 }),
        fc.option(fc.integer({ min: 1 }), { nil: undefined }),
        (cmd, pid) => {
          expect(hostArgv(cmd)).toEqual(cmd);
          const argv = hostArgv(cmd, pid === undefined ? {} : { targetPid: pid });
          expect(argv.slice(0, 3)).toEqual(['nsenter', '--target', String(pid ?? 1)]);
          expect(argv.slice(3, 9)).toEqual(NAMESPACES);
          expect(argv.slice(9)).toEqual(cmd);
        },
      ),
    );
  });
});
