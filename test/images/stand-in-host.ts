/**
 * A stand-in for a node's host, for a container that asks for `hostPID` and enters PID 1's
 * namespaces with nsenter: PID 1 of a new PID namespace, in a mount namespace of its own where a
 * test folder is mounted over /usr/local/bin. A program put there exists only "on the host": not
 * in the image, and not on this machine (whose /usr/local/bin is left alone).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { eventually } from '@capstan/runtime/testing';

/** A running stand-in host. */
export interface StandInHost {
  /** Its PID namespace, for `podman run --pid=ns:<path>` (what `hostPID` means here). */
  pidNamespace: string;
  /** Its mount namespace's identity (`mnt:[inode]`), to tell where a program ran. */
  mountNamespace: string;
  stop(): Promise<void>;
}

/** The first child of a process (unshare --fork's child: PID 1 of the new namespace). */
function childOf(pid: number): number | undefined {
  try {
    const [first] = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ');
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts a stand-in host whose /usr/local/bin is `bin`; resolves once its PID 1 sleeps there. */
export async function startStandInHost(bin: string): Promise<StandInHost> {
  const child: ChildProcess = spawn(
    'unshare',
    [
      '--pid',
      '--fork',
      '--kill-child',
      '--mount',
      '--propagation=private',
      '--mount-proc',
      '/bin/sh',
      '-c',
      `mount --bind '${bin}' /usr/local/bin && exec sleep infinity`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const init = await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`unshare exited ${child.exitCode}: ${stderr}`);
      const pid = child.pid === undefined ? undefined : childOf(child.pid);
      if (pid === undefined) return undefined;
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep' ? pid : undefined;
      } catch {
        return undefined;
      }
    },
    { what: 'the stand-in host to start (unshare, util-linux)', timeoutMs: 10_000, intervalMs: 50 },
  );
  return {
    pidNamespace: `/proc/${init}/ns/pid`,
    mountNamespace: readlinkSync(`/proc/${init}/ns/mnt`),
    stop: async () => {
      // unshare ignores SIGTERM while it waits; --kill-child takes its PID 1 (and so the
      // namespace) with it when it dies.
      child.kill('SIGKILL');
      await exited;
    },
  };
}
