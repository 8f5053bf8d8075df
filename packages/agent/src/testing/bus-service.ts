import dbus from 'dbus-next';
import { BusConnection } from '../dbus/connection.js';

/**
 * Connects to `address`, exports `iface` at `path` and takes the well-known `name`, as a system
 * service does at start-up. Closes the connection and throws if the name is taken or anything fails.
 */
export async function ownService(
  address: string,
  path: string,
  name: string,
  iface: dbus.interface.Interface,
  connect: Omit<Parameters<typeof BusConnection.open>[0], 'address'> = {},
): Promise<BusConnection> {
  const conn = await BusConnection.open({ ...connect, address });
  let reply: number;
  try {
    conn.bus.export(path, iface);
    reply = await conn.requestName(name, dbus.NameFlag.DO_NOT_QUEUE);
  } catch (err) {
    conn.close();
    throw err;
  }
  if (reply !== dbus.RequestNameReply.PRIMARY_OWNER) {
    conn.close();
    throw new Error(`${name} is already owned on ${address}`);
  }
  return conn;
}

/** Releases `name` and disconnects, as a service exiting would. Safe on a closed connection. */
export async function releaseService(conn: BusConnection | undefined, name: string): Promise<void> {
  if (!conn || conn.closed) return;
  try {
    await conn.releaseName(name);
  } catch {
    // The bus may be gone already; disconnecting releases the name anyway.
  }
  conn.close();
}
