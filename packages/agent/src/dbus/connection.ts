import type { EventEmitter } from 'node:events';
import dbus from 'dbus-next';

/** Address of the system bus, honouring `DBUS_SYSTEM_BUS_ADDRESS` like libdbus does. */
export function systemBusAddress(): string {
  return process.env.DBUS_SYSTEM_BUS_ADDRESS || 'unix:path=/var/run/dbus/system_bus_socket';
}

/** Options for {@link BusConnection.open}. */
export interface BusConnectionOptions {
  /** D-Bus address such as `unix:path=/run/dbus/system_bus_socket`; defaults to {@link systemBusAddress}. */
  address?: string;
  /** How long to wait for the socket, the auth handshake and `Hello`; default 5 s. */
  connectTimeoutMs?: number;
  /** Default timeout of {@link BusConnection.call}; default 25 s (libdbus' default). */
  callTimeoutMs?: number;
  /** Ask for unix fd passing; only effective when `unixFdPassingAvailable()` is true. */
  negotiateUnixFd?: boolean;
}

/** A method call to send with {@link BusConnection.call}. */
export interface MethodCall {
  destination: string;
  path: string;
  interface: string;
  member: string;
  signature?: string;
  body?: unknown[];
}

/** Thrown when a method call gets no reply in time (also what a dead connection looks like). */
export class DBusTimeoutError extends Error {
  override readonly name = 'DBusTimeoutError';
}

/** Thrown when a connection cannot be established or is already closed. */
export class DBusConnectionError extends Error {
  override readonly name = 'DBusConnectionError';
}

const DBUS_NAME = 'org.freedesktop.DBus';
const DBUS_PATH = '/org/freedesktop/DBus';

/**
 * One connection to a message bus, wrapping a dbus-next `MessageBus` with what it lacks:
 * a promise that settles on connect or failure, a close notification (dbus-next forwards stream
 * errors but not the end of the stream), call timeouts (a call on a dead connection would
 * otherwise never settle) and raw match rules that work before the peer exists.
 */
export class BusConnection {
  private readonly closeListeners = new Set<(cause?: Error) => void>();
  private isClosed = false;
  private closeCause: Error | undefined;

  private constructor(
    /** The underlying dbus-next bus: export interfaces and request names through it. */
    readonly bus: dbus.MessageBus,
    /** The address this connection was opened on. */
    readonly address: string,
    private readonly callTimeoutMs: number,
  ) {}

  /** Connects and waits until the bus has assigned a unique name; rejects with {@link DBusConnectionError}. */
  static async open(options: BusConnectionOptions = {}): Promise<BusConnection> {
    const address = options.address ?? systemBusAddress();
    const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
    let bus: dbus.MessageBus;
    try {
      // sessionBus() with an explicit address is a plain client: it fits the system bus as well.
      bus = dbus.sessionBus({
        busAddress: address,
        negotiateUnixFd: options.negotiateUnixFd ?? false,
      } as dbus.SessionBusOptions);
    } catch (err) {
      throw new DBusConnectionError(`cannot connect to D-Bus at ${address}: ${describe(err)}`);
    }
    const conn = new BusConnection(bus, address, options.callTimeoutMs ?? 25_000);
    // dbus-next throws an unhandled 'error' event unless someone listens: always listen.
    bus.on('error', (err: unknown) => conn.markClosed(toError(err)));
    streamOf(bus).once('close', () => conn.markClosed());

    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        done();
        conn.close();
        reject(
          new DBusConnectionError(
            `cannot connect to D-Bus at ${address}: no answer in ${connectTimeoutMs} ms`,
          ),
        );
      }, connectTimeoutMs);
      const onConnect = () => {
        done();
        resolve();
      };
      const offClose = conn.onClose((cause) => {
        done();
        reject(
          new DBusConnectionError(
            `cannot connect to D-Bus at ${address}: ${cause ? cause.message : 'connection closed'}`,
          ),
        );
      });
      function done() {
        clearTimeout(timer);
        offClose();
        bus.removeListener('connect', onConnect);
      }
      bus.once('connect', onConnect);
    });
    return conn;
  }

  /** The unique name (`:1.42`) the bus gave this connection. */
  get uniqueName(): string {
    return (this.bus as unknown as { name: string }).name;
  }

  /** Whether the connection has ended (closed by us, by the peer, or by an error). */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Calls `listener` once when the connection ends; returns a function that unregisters it. */
  onClose(listener: (cause?: Error) => void): () => void {
    if (this.isClosed) {
      queueMicrotask(() => listener(this.closeCause));
      return () => {};
    }
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Sends a method call and waits for its reply; D-Bus errors reject with dbus-next's `DBusError`. */
  async call(call: MethodCall, timeoutMs = this.callTimeoutMs): Promise<dbus.Message> {
    if (this.isClosed) throw new DBusConnectionError(`D-Bus connection to ${this.address} is closed`);
    const msg = new dbus.Message({
      destination: call.destination,
      path: call.path,
      interface: call.interface,
      member: call.member,
      signature: call.signature ?? '',
      body: call.body ?? [],
    });
    let timer: NodeJS.Timeout | undefined;
    let offClose: (() => void) | undefined;
    const failure = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new DBusTimeoutError(
              `${call.interface}.${call.member} on ${call.destination}: no reply in ${timeoutMs} ms`,
            ),
          ),
        timeoutMs,
      );
      // dbus-next never settles calls pending when the socket goes away: fail them here.
      offClose = this.onClose((cause) =>
        reject(
          new DBusConnectionError(
            `${call.interface}.${call.member} on ${call.destination}: connection closed${cause ? `: ${cause.message}` : ''}`,
          ),
        ),
      );
    });
    try {
      const reply = await Promise.race([this.bus.call(msg), failure]);
      if (!reply) throw new DBusConnectionError(`${call.member}: no reply message`);
      return reply;
    } finally {
      clearTimeout(timer);
      offClose?.();
    }
  }

  /** Requests a well-known name; resolves with dbus-next's `RequestNameReply` code. */
  async requestName(name: string, flags: number): Promise<number> {
    const reply = await this.call({
      destination: DBUS_NAME,
      path: DBUS_PATH,
      interface: DBUS_NAME,
      member: 'RequestName',
      signature: 'su',
      body: [name, flags],
    });
    return Number(reply.body[0]);
  }

  /** Releases a well-known name; resolves with dbus-next's `ReleaseNameReply` code. */
  async releaseName(name: string): Promise<number> {
    const reply = await this.call({
      destination: DBUS_NAME,
      path: DBUS_PATH,
      interface: DBUS_NAME,
      member: 'ReleaseName',
      signature: 's',
      body: [name],
    });
    return Number(reply.body[0]);
  }

  /** Adds a match rule on the bus daemon so that matching signals reach the `message` event. */
  async addMatch(rule: string): Promise<void> {
    await this.call({
      destination: DBUS_NAME,
      path: DBUS_PATH,
      interface: DBUS_NAME,
      member: 'AddMatch',
      signature: 's',
      body: [rule],
    });
  }

  /** Unique name of the current owner of `name`, or undefined when nobody owns it. */
  async getNameOwner(name: string): Promise<string | undefined> {
    try {
      const reply = await this.call({
        destination: DBUS_NAME,
        path: DBUS_PATH,
        interface: DBUS_NAME,
        member: 'GetNameOwner',
        signature: 's',
        body: [name],
      });
      return String(reply.body[0]);
    } catch (err) {
      if (dbusErrorName(err) === 'org.freedesktop.DBus.Error.NameHasNoOwner') return undefined;
      throw err;
    }
  }

  /** Calls `handler` for every signal received; returns a function that unsubscribes. */
  onSignal(handler: (msg: dbus.Message) => void): () => void {
    const listener = (msg: dbus.Message) => {
      if (msg.type === dbus.MessageType.SIGNAL) handler(msg);
    };
    this.bus.on('message', listener);
    return () => this.bus.removeListener('message', listener);
  }

  /** Ends the connection; close listeners run once. Safe to call more than once. */
  close(): void {
    if (!this.isClosed) {
      try {
        this.bus.disconnect();
      } catch {
        // The stream may already be gone; closing is best effort.
      }
    }
    this.markClosed();
  }

  private markClosed(cause?: Error): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.closeCause = cause;
    // A socket error leaves the stream open in dbus-next: destroy it so nothing lingers.
    streamOf(this.bus).destroy?.();
    for (const listener of [...this.closeListeners]) listener(cause);
    this.closeListeners.clear();
  }
}

/** The D-Bus error name (`org.freedesktop.DBus.Error.ServiceUnknown`) of a failed call, if it is one. */
export function dbusErrorName(err: unknown): string | undefined {
  if (err instanceof dbus.DBusError) return err.type;
  return undefined;
}

function streamOf(bus: dbus.MessageBus): EventEmitter & { destroy?: () => void } {
  // dbus-next 0.10 keeps the socket at bus._connection.stream and does not re-emit its 'close'.
  return (bus as unknown as { _connection: { stream: EventEmitter & { destroy?: () => void } } })._connection
    .stream;
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(describe(err));
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
