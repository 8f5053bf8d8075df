import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('a test process that dies without stopping its control plane', () => {
  it('takes etcd and kube-apiserver with it', async () => {
    // A child Node process starts a control plane, prints its pids, then is killed with SIGKILL:
    // no cleanup code runs, only the watchdogs.
    const script = `const { ControlPlane } = await import(${JSON.stringify(entry)});
      const plane = await ControlPlane.start();
      process.stdout.write(JSON.stringify(plane.pids) + '\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pids = await new Promise<number[]>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString())));
      child.on('exit', (code) => reject(new Error(`child exited early with ${code}`)));
    });
    expect(pids).toHaveLength(2);
    expect(pids.every((pid) => existsSync(`/proc/${pid}`))).toBe(true);
    child.kill('SIGKILL');

    const deadline = Date.now() + 15_000;
    let alive = pids;
    while (alive.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      alive = pids.filter((pid) => isRunning(pid));
    }
    expect(alive).toEqual([]);
  });
});

/** True while the process exists and is not a zombie waiting to be reaped. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !/\) Z /.test(readStat(pid));
}

function readStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return ') Z ';
  }
}
