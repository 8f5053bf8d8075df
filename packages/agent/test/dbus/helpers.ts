import { eventually } from '@capstan/runtime/testing';
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

/**
 * Polls the synchronous `probe` until `predicate` holds of its value (which may itself be
 * undefined, hence this wrapper of `eventually`); fails with `what` and the last observed value.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T,
  predicate: (v: T) => boolean,
  timeoutMs = 5_000,
): Promise<T> {
  let last: T | undefined;
  const seen = await eventually(
    () => {
      const value = probe();
      last = value;
      return predicate(value) && { value };
    },
    {
      what,
      timeoutMs,
      intervalMs: 10,
      details: () => `last value: ${JSON.stringify(last, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}`,
    },
  );
  return seen.value;
}
