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
  mkdirSync(dirname(path), { recursive: true });
  let announced = false;
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    if (!Number.isFinite(holder) || !isAlive(holder)) {
      rmSync(path, { force: true }); // stale: its holder is gone
      continue;
    }
    if (!announced) onWait?.(holder);
    announced = true;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
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
