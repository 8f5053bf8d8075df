import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running private `dbus-daemon`; see {@link startPrivateBus}. */
export interface PrivateBus {
  /** Address to connect to, e.g. `unix:path=/tmp/capstan-dbus-x/bus.sock,guid=…`. */
  readonly address: string;
  /** Path of the listening socket. */
  readonly socketPath: string;
  /** Stops the daemon (every client is disconnected) and removes the files it created. */
  stop(): Promise<void>;
}

/** Options for {@link startPrivateBus}. */
export interface PrivateBusOptions {
  /** The daemon binary; default `dbus-daemon` from PATH. */
  dbusDaemon?: string;
  /** How long to wait for the daemon to print its address; default 10 s. */
  startTimeoutMs?: number;
}

/** What to tell someone whose machine has no `dbus-daemon`. */
export const DBUS_DAEMON_MISSING =
  'dbus-daemon was not found: install the Debian package dbus (apt-get install dbus)';

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Starts a real `dbus-daemon` on a `unix:path=` socket (abstract sockets need a native module
 * dbus-next lacks) with a policy that lets everyone own any name and send and receive anything,
 * so tests can play update_engine and logind without root.
 *
 * @param dir - folder for the socket and config; a fresh temporary folder when omitted (then removed on stop).
 */
export async function startPrivateBus(dir?: string, options: PrivateBusOptions = {}): Promise<PrivateBus> {
  const ownDir = dir === undefined;
  const base = dir ?? mkdtempSync(join(tmpdir(), 'capstan-dbus-'));
  const socketPath = join(base, 'bus.sock');
  const configPath = join(base, 'bus.conf');
  writeFileSync(configPath, busConfig(socketPath));

  const child = spawn(
    options.dbusDaemon ?? 'dbus-daemon',
    ['--config-file', configPath, '--print-address', '--nofork'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  track(child);
  const cleanupFiles = () => {
    if (ownDir) rmSync(base, { recursive: true, force: true });
    else rmSync(socketPath, { force: true });
  };

  let address: string;
  try {
    address = await readAddress(child, options.startTimeoutMs ?? 10_000);
  } catch (err) {
    await kill(child);
    cleanupFiles();
    throw err;
  }

  let stopped: Promise<void> | undefined;
  return {
    address,
    socketPath,
    stop() {
      stopped ??= kill(child).then(cleanupFiles);
      return stopped;
    },
  };
}

function busConfig(socketPath: string): string {
  return `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=${escapeXml(socketPath)}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
`;
}

function readAddress(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(
      () => finish(new Error(`dbus-daemon printed no address in ${timeoutMs} ms: ${stderr}`)),
      timeoutMs,
    );
    function finish(result: Error | string) {
      clearTimeout(timer);
      child.stdout?.removeAllListeners('data');
      child.removeListener('error', onError);
      child.removeListener('exit', onExit);
      if (typeof result === 'string') resolve(result);
      else reject(result);
    }
    const onError = (err: NodeJS.ErrnoException) =>
      finish(
        err.code === 'ENOENT'
          ? new Error(DBUS_DAEMON_MISSING)
          : new Error(`cannot start dbus-daemon: ${err.message}`),
      );
    const onExit = (code: number | null, signal: string | null) =>
      finish(
        new Error(`dbus-daemon exited (${signal ?? code}) before printing its address: ${stderr.trim()}`),
      );
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline >= 0) finish(stdout.slice(0, newline).trim());
    });
    child.once('error', onError);
    child.once('exit', onExit);
  });
}

function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  // A spawn failure is reported by readAddress; this listener only keeps it from being unhandled.
  child.on('error', () => {});
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A test run that ends without stop() must not leave daemons behind.
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
    running.delete(child);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 2_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
