import dbus from 'dbus-next';
import type { BusConnection } from '../dbus/connection.js';
import {
  statusToBody,
  UPDATE_ENGINE_INTERFACE,
  UPDATE_ENGINE_NAME,
  UPDATE_ENGINE_PATH,
  UPDATE_ENGINE_STATUS_SIGNATURE,
  type UpdateEngineStatus,
  UpdateStatus,
} from '../dbus/update-engine.js';
import { ownService, releaseService } from './bus-service.js';

/** A partial status for {@link FakeUpdateEngine.setStatus}; numbers are accepted for the int64 fields. */
export interface FakeStatusChange {
  operation?: string;
  newVersion?: string;
  progress?: number;
  lastCheckedTime?: bigint | number;
  newSize?: bigint | number;
}

/** Options for {@link FakeUpdateEngine}. */
export interface FakeUpdateEngineOptions {
  /** Bus to serve on (a private bus from `startPrivateBus`). */
  address: string;
  /** Status at first start; default idle, never checked. */
  initial?: FakeStatusChange;
  /**
   * Keep UPDATE_STATUS_UPDATED_NEED_REBOOT across stop/start, as update_engine does through its
   * marker file; any other status resets to idle on restart. Default true.
   */
  keepNeedRebootAcrossRestart?: boolean;
}

const IDLE: UpdateEngineStatus = {
  lastCheckedTime: 0n,
  progress: 0,
  currentOperation: UpdateStatus.Idle,
  newVersion: '',
  newSize: 0n,
};

class ManagerInterface extends dbus.interface.Interface {
  constructor(private readonly engine: FakeUpdateEngine) {
    super(UPDATE_ENGINE_INTERFACE);
  }
  GetStatus() {
    return statusToBody(this.engine.status);
  }
  AttemptUpdate() {
    this.engine.attemptUpdateCalls += 1;
  }
  ResetStatus() {
    this.engine.resetStatusCalls += 1;
    // update_engine's ResetStatus goes back to idle and forgets the pending update.
    this.engine.setStatus({ operation: UpdateStatus.Idle, progress: 0, newVersion: '', newSize: 0 });
  }
  StatusUpdate(body: unknown[]) {
    return body;
  }
}
ManagerInterface.configureMembers({
  methods: {
    GetStatus: { inSignature: '', outSignature: UPDATE_ENGINE_STATUS_SIGNATURE },
    AttemptUpdate: { inSignature: '', outSignature: '' },
    ResetStatus: { inSignature: '', outSignature: '' },
  },
  signals: { StatusUpdate: { signature: UPDATE_ENGINE_STATUS_SIGNATURE } },
});

/**
 * A stand-in for update_engine (`com.coreos.update1`) on a test bus: answers `GetStatus`,
 * counts `AttemptUpdate` / `ResetStatus`, and emits `StatusUpdate` when a test changes the status.
 * `stop()` and `start()` simulate update_engine restarting.
 */
export class FakeUpdateEngine {
  /** The current status, as `GetStatus` reports it. */
  status: UpdateEngineStatus;
  /** How many times `AttemptUpdate` was called. */
  attemptUpdateCalls = 0;
  /** How many times `ResetStatus` was called. */
  resetStatusCalls = 0;
  private conn: BusConnection | undefined;
  private iface: ManagerInterface | undefined;

  constructor(private readonly options: FakeUpdateEngineOptions) {
    this.status = merge(IDLE, options.initial ?? {});
  }

  /** Creates and starts a fake on `address`. */
  static async start(options: FakeUpdateEngineOptions): Promise<FakeUpdateEngine> {
    const engine = new FakeUpdateEngine(options);
    await engine.start();
    return engine;
  }

  /** Whether the fake currently owns `com.coreos.update1`. */
  get running(): boolean {
    return this.conn !== undefined && !this.conn.closed;
  }

  /** Connects, exports the manager and takes the bus name. */
  async start(): Promise<void> {
    if (this.running) return;
    const iface = new ManagerInterface(this);
    const conn = await ownService(this.options.address, UPDATE_ENGINE_PATH, UPDATE_ENGINE_NAME, iface);
    this.conn = conn;
    this.iface = iface;
  }

  /** Releases the name and disconnects, as update_engine exiting would. */
  async stop(): Promise<void> {
    const conn = this.conn;
    this.conn = undefined;
    this.iface = undefined;
    await releaseService(conn, UPDATE_ENGINE_NAME);
    const keep = this.options.keepNeedRebootAcrossRestart ?? true;
    if (!(keep && this.status.currentOperation === UpdateStatus.UpdatedNeedReboot)) {
      this.status = { ...IDLE, lastCheckedTime: this.status.lastCheckedTime };
    }
  }

  /**
   * Changes the status and, while running, emits `StatusUpdate`. Values are validated first, so
   * a bad status throws here and nothing is emitted.
   */
  setStatus(change: FakeStatusChange): UpdateEngineStatus {
    const next = merge(this.status, change);
    const body = statusToBody(next);
    this.status = next;
    if (this.running && this.iface) this.iface.StatusUpdate(body);
    return next;
  }
}

function merge(base: UpdateEngineStatus, change: FakeStatusChange): UpdateEngineStatus {
  return {
    lastCheckedTime:
      change.lastCheckedTime !== undefined ? toBigInt(change.lastCheckedTime) : base.lastCheckedTime,
    progress: change.progress ?? base.progress,
    currentOperation: change.operation ?? base.currentOperation,
    newVersion: change.newVersion ?? base.newVersion,
    newSize: change.newSize !== undefined ? toBigInt(change.newSize) : base.newSize,
  };
}

function toBigInt(value: bigint | number): bigint {
  if (typeof value === 'number' && !Number.isInteger(value)) {
    throw new TypeError(`int64 fields need an integer, got ${value}`);
  }
  return BigInt(value);
}
