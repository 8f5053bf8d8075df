import { closeSync, openSync } from 'node:fs';
import dbus from 'dbus-next';
import type { BusConnection } from '../dbus/connection.js';
import { unixFdPassingAvailable } from '../dbus/fd-passing.js';
import { LOGIND_INTERFACE, LOGIND_NAME, LOGIND_PATH } from '../dbus/logind.js';
import { ownService, releaseService } from './bus-service.js';

/** One reboot request the fake received. */
export interface RebootRequest {
  method: 'Reboot' | 'RebootWithFlags';
  /** `Reboot`'s interactive flag. */
  interactive?: boolean;
  /** `RebootWithFlags`' flags. */
  flags?: bigint;
}

/** Options for {@link FakeLogind}. */
export interface FakeLogindOptions {
  /** Bus to serve on (a private bus from `startPrivateBus`). */
  address: string;
  /** `CanReboot`'s answer; default "yes". */
  canReboot?: string;
}

/** Error names in `failReboot` must be D-Bus error names, e.g. `org.freedesktop.DBus.Error.AccessDenied`. */
export interface RebootFailure {
  name: string;
  message: string;
}

class ManagerInterface extends dbus.interface.Interface {
  constructor(private readonly logind: FakeLogind) {
    super(LOGIND_INTERFACE);
  }
  CanReboot() {
    return this.logind.canRebootAnswer;
  }
  Reboot(interactive: boolean) {
    this.logind.handleReboot({ method: 'Reboot', interactive });
  }
  RebootWithFlags(flags: bigint) {
    this.logind.handleReboot({ method: 'RebootWithFlags', flags });
  }
  Inhibit(what: string, who: string, why: string, mode: string) {
    return this.logind.handleInhibit(what, who, why, mode);
  }
  PrepareForShutdown(active: boolean) {
    return active;
  }
}
ManagerInterface.configureMembers({
  methods: {
    CanReboot: { inSignature: '', outSignature: 's' },
    Reboot: { inSignature: 'b', outSignature: '' },
    RebootWithFlags: { inSignature: 't', outSignature: '' },
    Inhibit: { inSignature: 'ssss', outSignature: 'h' },
  },
  signals: { PrepareForShutdown: { signature: 'b' } },
});

/**
 * A stand-in for systemd-logind (`org.freedesktop.login1`) on a test bus. It records reboot
 * requests, emits `PrepareForShutdown(true)` and then runs the `onReboot` hooks (the demo uses one
 * to make the "node" go down); `failReboot` makes `Reboot` answer with a D-Bus error instead.
 *
 * `Inhibit` answers `org.freedesktop.DBus.Error.NotSupported` unless dbus-next can pass unix fds
 * (it needs the optional native `usocket`): a bare number is no file descriptor.
 */
export class FakeLogind {
  /** Current `CanReboot` answer; change it with {@link FakeLogind.setCanReboot}. */
  canRebootAnswer: string;
  /** Reboot requests that were accepted, oldest first. */
  readonly reboots: RebootRequest[] = [];
  /** Errors thrown or rejected by `onReboot` hooks (they never reach the caller of `Reboot`). */
  readonly hookErrors: unknown[] = [];
  private failure: RebootFailure | undefined;
  private readonly hooks: Array<(request: RebootRequest) => void | Promise<void>> = [];
  private readonly inhibitFds: number[] = [];
  private conn: BusConnection | undefined;
  private iface: ManagerInterface | undefined;
  private pendingHooks: Promise<void> = Promise.resolve();

  constructor(private readonly options: FakeLogindOptions) {
    this.canRebootAnswer = options.canReboot ?? 'yes';
  }

  /** Creates and starts a fake on `address`. */
  static async start(options: FakeLogindOptions): Promise<FakeLogind> {
    const logind = new FakeLogind(options);
    await logind.start();
    return logind;
  }

  /** Connects, exports the manager and takes the bus name. */
  async start(): Promise<void> {
    if (this.conn && !this.conn.closed) return;
    const iface = new ManagerInterface(this);
    const conn = await ownService(this.options.address, LOGIND_PATH, LOGIND_NAME, iface, {
      negotiateUnixFd: unixFdPassingAvailable(),
    });
    this.conn = conn;
    this.iface = iface;
  }

  /** Releases the name, disconnects and closes any inhibitor fds it handed out. */
  async stop(): Promise<void> {
    const conn = this.conn;
    this.conn = undefined;
    this.iface = undefined;
    await releaseService(conn, LOGIND_NAME);
    for (const fd of this.inhibitFds.splice(0)) closeSync(fd);
  }

  /** Sets the answer of `CanReboot` ("yes", "no", "challenge", "na"). */
  setCanReboot(answer: string): void {
    this.canRebootAnswer = answer;
  }

  /** Makes every following `Reboot`/`RebootWithFlags` fail with this D-Bus error; `undefined` to succeed again. */
  failReboot(failure: RebootFailure | undefined): void {
    if (failure) new dbus.DBusError(failure.name, failure.message); // validates the name now, not at call time
    this.failure = failure;
  }

  /** Runs `hook` after each accepted reboot, after the reply was sent (as logind replies before going down). */
  onReboot(hook: (request: RebootRequest) => void | Promise<void>): void {
    this.hooks.push(hook);
  }

  /** Resolves once the hooks of every reboot accepted so far have finished. */
  async settled(): Promise<void> {
    await this.pendingHooks;
  }

  /** Emits `PrepareForShutdown(active)`. */
  emitPrepareForShutdown(active: boolean): void {
    if (this.conn && !this.conn.closed && this.iface) this.iface.PrepareForShutdown(active);
  }

  /** @internal called by the exported interface. */
  handleReboot(request: RebootRequest): void {
    if (this.failure) throw new dbus.DBusError(this.failure.name, this.failure.message);
    this.reboots.push(request);
    // Reply first, like logind, then announce the shutdown and run the hooks.
    const run = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      this.emitPrepareForShutdown(true);
      for (const hook of this.hooks) {
        try {
          await hook(request);
        } catch (err) {
          this.hookErrors.push(err);
        }
      }
    });
    this.pendingHooks = this.pendingHooks.then(() => run);
  }

  /** @internal called by the exported interface. */
  handleInhibit(what: string, who: string, why: string, mode: string): number {
    if (!unixFdPassingAvailable() || !this.conn) {
      throw new dbus.DBusError(
        'org.freedesktop.DBus.Error.NotSupported',
        'this test logind cannot pass unix fds: dbus-next needs the optional native module usocket',
      );
    }
    if (!what || !who || !why || (mode !== 'block' && mode !== 'delay')) {
      throw new dbus.DBusError(
        'org.freedesktop.DBus.Error.InvalidArgs',
        `bad inhibitor ${what}/${who}/${why}/${mode}`,
      );
    }
    // Any fd works as a lock handle here; logind itself hands out a FIFO end it watches.
    const fd = openSync('/dev/null', 'r');
    this.inhibitFds.push(fd);
    return fd;
  }
}
