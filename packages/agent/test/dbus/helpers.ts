import type { SourceStatus } from '../../src/sources/source.js';

/** Records every status a source reports. */
export function recorder(): {
  statuses: SourceStatus[];
  onChange: (s: SourceStatus) => void;
  last: () => SourceStatus | undefined;
} {
  const statuses: SourceStatus[] = [];
  return { statuses, onChange: (s) => statuses.push(s), last: () => statuses.at(-1) };
}

/** Polls `predicate` until it holds; fails with `what` and the last observed value otherwise. */
export async function waitFor<T>(
  what: string,
  probe: () => T,
  predicate: (v: T) => boolean,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (predicate(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what}; last value: ${JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}`,
      );
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}
