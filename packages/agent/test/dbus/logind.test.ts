import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BusConnection } from '../../src/dbus/connection.js';
import { unixFdPassingAvailable } from '../../src/dbus/fd-passing.js';
import {
  InhibitUnsupportedError,
  LOGIND_INTERFACE,
  LOGIND_NAME,
  LOGIND_PATH,
  Logind,
} from '../../src/dbus/logind.js';
import { RebootFailedError } from '../../src/dbus/reboot-failed-error.js';
import { FakeLogind, type RebootRequest } from '../../src/testing/fake-logind.js';
import { type PrivateBus, startPrivateBus } from '../../src/testing/private-bus.js';
import { waitFor } from './helpers.js';

describe('Logind client against a fake logind on a real dbus-daemon', () => {
  let bus: PrivateBus;
  let fake: FakeLogind;
  let logind: Logind;

  beforeEach(async () => {
    bus = await startPrivateBus();
    fake = await FakeLogind.start({ address: bus.address });
    logind = new Logind({ address: bus.address, callTimeoutMs: 2_000 });
  });
  afterEach(async () => {
    await fake.stop();
    await bus.stop();
  });

  it('reads CanReboot', async () => {
    expect(await logind.canReboot()).toBe('yes');
    fake.setCanReboot('challenge');
    expect(await logind.canReboot()).toBe('challenge');
    fake.setCanReboot('no');
    expect(await logind.canReboot()).toBe('no');
  });

  it('a successful reboot reaches the fake and runs its (async) onReboot hook after PrepareForShutdown', async () => {
    const events: string[] = [];
    const watcher = await BusConnection.open({ address: bus.address });
    await watcher.addMatch(`type='signal',interface='${LOGIND_INTERFACE}',member='PrepareForShutdown'`);
    watcher.onSignal((msg) => {
      if (msg.member === 'PrepareForShutdown') events.push(`PrepareForShutdown(${String(msg.body[0])})`);
    });
    const seen: RebootRequest[] = [];
    fake.onReboot(async (request) => {
      await new Promise((r) => setTimeout(r, 20));
      seen.push(request);
      events.push('hook');
    });

    await logind.reboot();
    await fake.settled();

    expect(fake.reboots).toEqual([{ method: 'Reboot', interactive: false }]);
    expect(seen).toEqual([{ method: 'Reboot', interactive: false }]);
    await waitFor(
      'signal and hook',
      () => events.length,
      (n) => n === 2,
    );
    expect(events).toEqual(['PrepareForShutdown(true)', 'hook']);
    watcher.close();
  });

  it('a hook that throws does not fail the reboot and is recorded', async () => {
    fake.onReboot(() => {
      throw new Error('node refused to die');
    });
    await logind.reboot();
    await fake.settled();
    expect(fake.reboots).toHaveLength(1);
    expect(fake.hookErrors).toEqual([new Error('node refused to die')]);
  });

  it('a D-Bus error from Reboot becomes a RebootFailedError carrying the error name', async () => {
    fake.failReboot({ name: 'org.freedesktop.DBus.Error.AccessDenied', message: 'Access denied by polkit' });
    const err = await logind.reboot().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RebootFailedError);
    expect(err).toMatchObject({
      reason: 'dbus-error',
      dbusErrorName: 'org.freedesktop.DBus.Error.AccessDenied',
      canReboot: 'yes',
    });
    expect((err as Error).message).toContain('Access denied by polkit');
    expect(fake.reboots).toEqual([]);

    // And once logind accepts again, so does the client.
    fake.failReboot(undefined);
    await logind.reboot();
    expect(fake.reboots).toHaveLength(1);
  });

  it('refuses to call Reboot when CanReboot answers "no"', async () => {
    fake.setCanReboot('no');
    const err = await logind.reboot().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RebootFailedError);
    expect(err).toMatchObject({ reason: 'not-allowed', canReboot: 'no' });
    expect((err as Error).message).toMatch(/CanReboot answered "no"/);
    expect(fake.reboots).toEqual([]);
  });

  it('"challenge" is allowed to try (polkit decides)', async () => {
    fake.setCanReboot('challenge');
    await logind.reboot();
    expect(fake.reboots).toHaveLength(1);
  });

  it('logind missing from the bus is a RebootFailedError, not a silent success', async () => {
    await fake.stop();
    const err = await logind.reboot().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RebootFailedError);
    expect(err).toMatchObject({
      reason: 'dbus-error',
      dbusErrorName: 'org.freedesktop.DBus.Error.ServiceUnknown',
    });
  });

  it('no bus at all is a RebootFailedError with reason unreachable', async () => {
    const nowhere = new Logind({ address: 'unix:path=/nonexistent/capstan/bus.sock', callTimeoutMs: 1_000 });
    const err = await nowhere.reboot().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RebootFailedError);
    expect(err).toMatchObject({ reason: 'unreachable' });
  });

  it('RebootWithFlags reaches the fake with its uint64 flags', async () => {
    const client = await BusConnection.open({ address: bus.address });
    await client.call({
      destination: LOGIND_NAME,
      path: LOGIND_PATH,
      interface: LOGIND_INTERFACE,
      member: 'RebootWithFlags',
      signature: 't',
      body: [0n],
    });
    client.close();
    expect(fake.reboots).toEqual([{ method: 'RebootWithFlags', flags: 0n }]);
  });

  it('inhibit reports that fd passing is unavailable (dbus-next without usocket); the fake refuses Inhibit', async () => {
    // This machine's dbus-next has no usocket: if that changes, this test must grow a real fd check.
    expect(unixFdPassingAvailable()).toBe(false);
    await expect(logind.inhibit('shutdown', 'capstan', 'draining', 'delay')).rejects.toBeInstanceOf(
      InhibitUnsupportedError,
    );
    const client = await BusConnection.open({ address: bus.address });
    const err = await client
      .call({
        destination: LOGIND_NAME,
        path: LOGIND_PATH,
        interface: LOGIND_INTERFACE,
        member: 'Inhibit',
        signature: 'ssss',
        body: ['shutdown', 'a', 'b', 'delay'],
      })
      .catch((e: unknown) => e);
    client.close();
    expect(err).toMatchObject({ type: 'org.freedesktop.DBus.Error.NotSupported' });
  });
});
