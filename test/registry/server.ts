/**
 * `npm run registry` for a test: scripts/registry.mjs in a process group of its own on a free
 * loopback port, ready once every public package is published; stopped (the whole group) by
 * `stop`, which afterAll calls whatever happened before.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { root } from '../packaging/packages.js';

/** A running registry. */
export interface LocalRegistry {
  /** Its URL, with a trailing slash: `http://127.0.0.1:<port>/`. */
  url: string;
  /** What it printed, for a failing test's message. */
  output(): string;
  /** Ends it and waits for its exit (SIGTERM, then SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** Sends `signal` to the child's process group (it leads one: `detached`). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    signalGroup(child, 'SIGTERM');
    const killer = setTimeout(() => signalGroup(child, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };
}

/** Starts the registry and publishes every public package; rejects with its output if it cannot. */
export async function startRegistry(timeoutMs = 240_000): Promise<LocalRegistry> {
  const child = spawn(process.execPath, [join(root, 'scripts/registry.mjs'), '--port', '0'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stop = stopper(child);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "ready" within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /^ready: (\S+)/m.exec(output);
      if (ready?.[1]) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`scripts/registry.mjs exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { url, output: () => output, stop };
}
