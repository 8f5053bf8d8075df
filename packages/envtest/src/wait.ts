import type { ManagedProcess } from './process.js';

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it answers true, failing early with the log tail if the process died. */
export async function waitFor(
  name: string,
  proc: ManagedProcess,
  timeoutMs: number,
  probe: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.hasExited) throw new Error(`${name} exited while starting; last log lines:\n${proc.tail()}`);
    if (await probe()) return;
    await delay(100);
  }
  throw new Error(`${name} not ready within ${timeoutMs} ms; last log lines:\n${proc.tail()}`);
}

/**
 * Polls `probe` every `everyMs` (default 100) until it answers a value other than undefined;
 * fails after `timeoutMs` saying `what`.
 */
export async function pollUntil<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await delay(everyMs);
  }
}
