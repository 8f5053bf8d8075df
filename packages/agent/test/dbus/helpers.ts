import { eventually } from '@capstan/runtime/testing';
import type { SourceStatus } from '../../src/sources/source.js';
import { FakeLogind } from '../../src/testing/fake-logind.js';
import { FakeUpdateEngine } from '../../src/testing/fake-update-engine.js';
import { type PrivateBus, startPrivateBus } from '../../src/testing/private-bus.js';

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

/** A host's system bus as the agent's tests fake it: a private dbus-daemon with update_engine and logind. */
export interface FakeHost {
  bus: PrivateBus;
  engine: FakeUpdateEngine;
  logind: FakeLogind;
}

/** Starts a private dbus-daemon serving the fake update_engine and logind. */
export async function startFakeHost(): Promise<FakeHost> {
  const bus = await startPrivateBus();
  const engine = await FakeUpdateEngine.start({ address: bus.address });
  const logind = await FakeLogind.start({ address: bus.address });
  return { bus, engine, logind };
}

/** Stops what {@link startFakeHost} started (a no-op for a host that never started). */
export async function stopFakeHost(host: FakeHost | undefined): Promise<void> {
  await host?.logind.stop();
  await host?.engine.stop();
  await host?.bus.stop();
}
