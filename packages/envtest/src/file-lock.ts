import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Takes an exclusive lock file holding our pid, waiting while another live process holds it.
 * A lock whose holder has died is taken over, so a crashed build never blocks later ones.
 * Returns the release function.
 */
export async function acquireFileLock(
  path: string,
  onWait?: (holderPid: number) => void,
  pollMs = 500,
): Promise<() => void> {
  let announced = false;
  while (!tryFileLock(path)) {
    if (!announced) onWait?.(holderOf(path));
    announced = true;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return () => rmSync(path, { force: true });
}

/**
 * One try at the lock file: true if it is now ours, false while another live process (or this
 * one) holds it. A lock whose holder has died is taken over.
 */
export function tryFileLock(path: string): boolean {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = holderOf(path);
    if (Number.isFinite(holder) && isAlive(holder)) return false;
    rmSync(path, { force: true }); // stale: its holder is gone
  }
  return false;
}

/** The pid in a lock file, or NaN if it is gone or unreadable. */
function holderOf(path: string): number {
  try {
    return Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
  } catch {
    return Number.NaN;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
