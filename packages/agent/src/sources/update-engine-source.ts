import { backoffDelay, type Clock, realClock, type TimerHandle } from '@capstan/runtime';
import type dbus from 'dbus-next';
import { BusConnection, dbusErrorName } from '../dbus/connection.js';
import {
  statusFromBody,
  UPDATE_ENGINE_INTERFACE,
  UPDATE_ENGINE_NAME,
  UPDATE_ENGINE_PATH,
  type UpdateEngineStatus,
  UpdateStatus,
} from '../dbus/update-engine.js';
import { StatusReporter } from './reporter.js';
import type { RebootNeededSource, SourceStatus } from './source.js';

/** Options for {@link UpdateEngineSource}. */
export interface UpdateEngineSourceOptions {
  /** Bus address; defaults to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` or /var/run/dbus). */
  address?: string;
  /** Timeout of each D-Bus call; default 10 s. */
  callTimeoutMs?: number;
  /** First delay before reconnecting or retrying; doubled on each failure. Default 500 ms. */
  retryMinMs?: number;
  /** Longest delay between retries; default 30 s. */
  retryMaxMs?: number;
  /** The clock retries wait on; default the wall clock. */
  clock?: Clock;
}

const DBUS_NAME = 'org.freedesktop.DBus';

// The sender clause makes the daemon deliver only signals from whoever owns the name right now.
const STATUS_RULE = `type='signal',sender='${UPDATE_ENGINE_NAME}',path='${UPDATE_ENGINE_PATH}',interface='${UPDATE_ENGINE_INTERFACE}',member='StatusUpdate'`;
const OWNER_RULE = `type='signal',sender='${DBUS_NAME}',path='/org/freedesktop/DBus',interface='${DBUS_NAME}',member='NameOwnerChanged',arg0='${UPDATE_ENGINE_NAME}'`;

/**
 * Reboot needed iff update_engine's current operation is UPDATE_STATUS_UPDATED_NEED_REBOOT.
 *
 * Subscribes with raw match rules (they work before update_engine exists), then asks
 * `GetStatus`, then follows `StatusUpdate`. It re-asks whenever `com.coreos.update1` gets a new
 * owner (update_engine restarted), and reconnects with backoff when the bus itself goes away,
 * reporting an error status meanwhile. Nothing here throws or rejects after `start`.
 */
export class UpdateEngineSource implements RebootNeededSource {
  private readonly callTimeoutMs: number;
  private readonly retryMinMs: number;
  private readonly retryMaxMs: number;
  private reporter: StatusReporter | undefined;
  private conn: BusConnection | undefined;
  private stopped = true;
  private retryTimer: TimerHandle | undefined;
  private readonly clock: Clock;
  /** Failures in a row since the last success: the backoff exponent. */
  private failures = 0;
  /** Unique name of update_engine's current instance; signals from anyone else are ignored. */
  private owner: string | undefined;
  /** Bumped by each GetStatus round and when update_engine leaves, so stale replies are dropped. */
  private generation = 0;
  private pending = new Set<Promise<void>>();

  constructor(private readonly options: UpdateEngineSourceOptions = {}) {
    this.callTimeoutMs = options.callTimeoutMs ?? 10_000;
    this.retryMinMs = options.retryMinMs ?? 500;
    this.retryMaxMs = options.retryMaxMs ?? 30_000;
    this.clock = options.clock ?? realClock;
  }

  async start(onChange: (status: SourceStatus) => void): Promise<void> {
    if (!this.stopped) throw new Error('source already started');
    this.stopped = false;
    const reporter = new StatusReporter(onChange);
    this.reporter = reporter;
    await this.track(this.connect());
    if (!reporter.current) reporter.error('update_engine status not known yet');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.reporter?.close();
    if (this.retryTimer !== undefined) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const conn = this.conn;
    this.conn = undefined;
    conn?.close();
    await Promise.all(this.pending);
  }

  private async connect(): Promise<void> {
    let conn: BusConnection;
    try {
      conn = await BusConnection.open({
        ...(this.options.address !== undefined ? { address: this.options.address } : {}),
        connectTimeoutMs: this.callTimeoutMs,
        callTimeoutMs: this.callTimeoutMs,
      });
    } catch (err) {
      this.fail(`cannot connect to D-Bus: ${messageOf(err)}`, () => this.connect());
      return;
    }
    if (this.stopped) {
      conn.close();
      return;
    }
    this.conn = conn;
    this.owner = undefined;
    conn.onClose((cause) => {
      if (this.conn !== conn) return;
      this.conn = undefined;
      this.owner = undefined;
      this.generation += 1;
      if (this.stopped) return;
      this.fail(`lost the D-Bus connection${cause ? `: ${cause.message}` : ''}`, () => this.connect());
    });
    conn.onSignal((msg) => this.onSignal(conn, msg));
    try {
      await conn.addMatch(STATUS_RULE);
      await conn.addMatch(OWNER_RULE);
    } catch (err) {
      if (this.conn !== conn) return;
      this.conn = undefined;
      conn.close();
      this.fail(`cannot subscribe to update_engine signals: ${messageOf(err)}`, () => this.connect());
      return;
    }
    await this.refresh(conn);
  }

  /** Finds update_engine's current instance and asks it for its status. */
  private async refresh(conn: BusConnection): Promise<void> {
    const generation = ++this.generation;
    const current = () => generation === this.generation && this.conn === conn && !this.stopped;
    try {
      const owner = await conn.getNameOwner(UPDATE_ENGINE_NAME);
      if (!current()) return;
      if (owner === undefined) {
        // Not an error to retry: NameOwnerChanged tells us when it starts.
        this.reporter?.error(`update_engine (${UPDATE_ENGINE_NAME}) is not running`);
        this.failures = 0;
        return;
      }
      this.owner = owner;
      // Asking the unique name pins the reply to the instance we just found.
      const reply = await conn.call({
        destination: owner,
        path: UPDATE_ENGINE_PATH,
        interface: UPDATE_ENGINE_INTERFACE,
        member: 'GetStatus',
      });
      if (!current()) return;
      this.apply(statusFromBody(reply.body));
      this.failures = 0;
    } catch (err) {
      if (!current()) return;
      const name = dbusErrorName(err);
      if (
        name === 'org.freedesktop.DBus.Error.ServiceUnknown' ||
        name === 'org.freedesktop.DBus.Error.NameHasNoOwner'
      ) {
        // It left between the two calls; NameOwnerChanged will bring it back.
        this.reporter?.error(`update_engine (${UPDATE_ENGINE_NAME}) is not running`);
        return;
      }
      this.fail(`update_engine GetStatus failed: ${messageOf(err)}`, () => this.refresh(conn));
    }
  }

  private onSignal(conn: BusConnection, msg: dbus.Message): void {
    if (this.conn !== conn || this.stopped) return;
    if (msg.interface === DBUS_NAME && msg.member === 'NameOwnerChanged' && msg.sender === DBUS_NAME) {
      const [name, , newOwner] = msg.body as [unknown, unknown, unknown];
      if (name !== UPDATE_ENGINE_NAME) return;
      if (typeof newOwner === 'string' && newOwner !== '') {
        this.owner = newOwner;
        if (this.retryTimer !== undefined) this.clock.clearTimeout(this.retryTimer);
        void this.track(this.refresh(conn));
      } else {
        this.owner = undefined;
        this.generation += 1;
        this.reporter?.error(`update_engine (${UPDATE_ENGINE_NAME}) left the bus`);
      }
      return;
    }
    if (
      msg.interface === UPDATE_ENGINE_INTERFACE &&
      msg.member === 'StatusUpdate' &&
      msg.path === UPDATE_ENGINE_PATH &&
      this.owner !== undefined &&
      msg.sender === this.owner
    ) {
      try {
        this.apply(statusFromBody(msg.body));
      } catch (err) {
        this.reporter?.error(`ignored a malformed StatusUpdate: ${messageOf(err)}`);
      }
    }
  }

  private apply(status: UpdateEngineStatus): void {
    this.reporter?.ok({
      rebootNeeded: status.currentOperation === UpdateStatus.UpdatedNeedReboot,
      status: status.currentOperation,
      newVersion: status.newVersion,
      lastCheckedTime: status.lastCheckedTime,
    });
  }

  /** Reports `message` and runs `retry` after the current backoff delay (doubling it). */
  private fail(message: string, retry: () => Promise<void>): void {
    if (this.stopped) return;
    this.reporter?.error(message);
    if (this.retryTimer !== undefined) this.clock.clearTimeout(this.retryTimer);
    const delay = backoffDelay(this.failures++, { initialMs: this.retryMinMs, maxMs: this.retryMaxMs });
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) void this.track(retry());
    }, delay);
  }

  /** Keeps `work` (which never rejects) so that stop() can wait for it. */
  private track(work: Promise<void>): Promise<void> {
    const guarded = work.catch((err: unknown) => {
      // Defensive: every path above handles its errors; report rather than reject.
      this.reporter?.error(`update_engine source: ${messageOf(err)}`);
    });
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
    return guarded;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
