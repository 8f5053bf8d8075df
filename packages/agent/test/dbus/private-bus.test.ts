import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BusConnection } from '../../src/dbus/connection.js';
import { DBUS_DAEMON_MISSING, startPrivateBus } from '../../src/testing/private-bus.js';

describe('startPrivateBus', () => {
  it('runs a real dbus-daemon on a unix:path socket that clients can use, and stops it', async () => {
    const bus = await startPrivateBus();
    expect(bus.address).toMatch(/^unix:path=\/.*bus\.sock/);
    expect(existsSync(bus.socketPath)).toBe(true);

    const a = await BusConnection.open({ address: bus.address });
    const b = await BusConnection.open({ address: bus.address });
    expect(a.uniqueName).toMatch(/^:1\.\d+$/);
    // The permissive policy lets anyone own a name.
    expect(await a.requestName('org.capstan.Test', 4)).toBe(1);
    expect(await b.getNameOwner('org.capstan.Test')).toBe(a.uniqueName);

    const closed = new Promise<void>((resolve) => b.onClose(() => resolve()));
    await bus.stop();
    await closed;
    expect(b.closed).toBe(true);
    expect(existsSync(bus.socketPath)).toBe(false);
    a.close();
  });

  it('fails with the install hint when dbus-daemon is missing', async () => {
    await expect(startPrivateBus(undefined, { dbusDaemon: '/nonexistent/dbus-daemon' })).rejects.toThrow(
      'install the Debian package dbus (apt-get install dbus)',
    );
    expect(DBUS_DAEMON_MISSING).toContain('apt-get install dbus');
  });
});
