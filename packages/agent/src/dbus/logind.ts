import { closeSync } from 'node:fs';
import { BusConnection, DBusTimeoutError, dbusErrorName } from './connection.js';
import { unixFdPassingAvailable } from './fd-passing.js';
import { RebootFailedError } from './reboot-failed-error.js';

/** Well-known bus name of systemd-logind. */
export const LOGIND_NAME = 'org.freedesktop.login1';
/** Object path of logind's manager. */
export const LOGIND_PATH = '/org/freedesktop/login1';
/** Interface of logind's manager. */
export const LOGIND_INTERFACE = 'org.freedesktop.login1.Manager';

/** logind's answers to `CanReboot`; other strings are passed through. */
export type CanRebootAnswer = 'yes' | 'no' | 'challenge' | 'na' | (string & {});

/** Options for {@link Logind}. */
export interface LogindOptions {
  /** Bus address; defaults to the system bus. */
  address?: string;
  /** Timeout of each call; default 25 s. */
  callTimeoutMs?: number;
}

/** Thrown by {@link Logind.inhibit} when this process cannot receive the lock's file descriptor. */
export class InhibitUnsupportedError extends Error {
  override readonly name = 'InhibitUnsupportedError';
}

/**
 * Client for the parts of systemd-logind the agent uses. Each operation opens its own short
 * connection: reboots are rare, and this way a restarted bus never leaves a stale connection.
 */
export class Logind {
  constructor(private readonly options: LogindOptions = {}) {}

  /** logind's `CanReboot` answer ("yes", "no", "challenge", "na"). */
  async canReboot(): Promise<CanRebootAnswer> {
    return this.withConnection(async (conn) => {
      const reply = await conn.call(this.managerCall('CanReboot'));
      return String(reply.body[0]);
    });
  }

  /**
   * Asks logind to reboot now (non-interactive). Checks `CanReboot` first so that a refusal
   * is reported with logind's own answer. Every failure throws {@link RebootFailedError}.
   */
  async reboot(): Promise<void> {
    let conn: BusConnection;
    try {
      conn = await BusConnection.open(this.connectionOptions());
    } catch (err) {
      throw new RebootFailedError(`cannot reach logind: ${messageOf(err)}`, 'unreachable');
    }
    try {
      let answer: string;
      try {
        answer = String((await conn.call(this.managerCall('CanReboot'))).body[0]);
      } catch (err) {
        throw failure('CanReboot', err);
      }
      if (answer !== 'yes' && answer !== 'challenge') {
        throw new RebootFailedError(
          `logind refuses to reboot: CanReboot answered "${answer}"`,
          'not-allowed',
          undefined,
          answer,
        );
      }
      try {
        await conn.call(this.managerCall('Reboot', 'b', [false]));
      } catch (err) {
        throw failure('Reboot', err, answer);
      }
    } finally {
      conn.close();
    }
  }

  /**
   * Takes an inhibitor lock (`what` e.g. "shutdown", `mode` "block" or "delay") and returns a
   * function that releases it by closing the lock's file descriptor.
   *
   * Throws {@link InhibitUnsupportedError} when unix fd passing is unavailable (dbus-next
   * without its optional native `usocket`): the lock is optional for the agent.
   */
  async inhibit(what: string, who: string, why: string, mode: string): Promise<() => void> {
    if (!unixFdPassingAvailable()) {
      throw new InhibitUnsupportedError(
        'cannot take a logind inhibitor lock: dbus-next passes unix fds only with the optional native module usocket',
      );
    }
    return this.withConnection(
      async (conn) => {
        const reply = await conn.call(this.managerCall('Inhibit', 'ssss', [what, who, why, mode]));
        const fd = reply.body[0];
        if (typeof fd !== 'number') throw new InhibitUnsupportedError('logind returned no file descriptor');
        let open = true;
        return () => {
          if (open) {
            open = false;
            closeSync(fd);
          }
        };
      },
      { negotiateUnixFd: true },
    );
  }

  private async withConnection<T>(
    fn: (conn: BusConnection) => Promise<T>,
    extra: { negotiateUnixFd?: boolean } = {},
  ): Promise<T> {
    const conn = await BusConnection.open({ ...this.connectionOptions(), ...extra });
    try {
      return await fn(conn);
    } finally {
      conn.close();
    }
  }

  private connectionOptions() {
    return {
      ...(this.options.address !== undefined ? { address: this.options.address } : {}),
      ...(this.options.callTimeoutMs !== undefined ? { callTimeoutMs: this.options.callTimeoutMs } : {}),
    };
  }

  private managerCall(member: string, signature = '', body: unknown[] = []) {
    return {
      destination: LOGIND_NAME,
      path: LOGIND_PATH,
      interface: LOGIND_INTERFACE,
      member,
      signature,
      body,
    };
  }
}

function failure(member: string, err: unknown, canReboot?: string): RebootFailedError {
  const name = dbusErrorName(err);
  if (name !== undefined) {
    return new RebootFailedError(
      `logind ${member} failed: ${name}: ${messageOf(err)}`,
      'dbus-error',
      name,
      canReboot,
    );
  }
  if (err instanceof DBusTimeoutError) {
    return new RebootFailedError(`logind ${member} failed: ${err.message}`, 'timeout', undefined, canReboot);
  }
  return new RebootFailedError(
    `logind ${member} failed: ${messageOf(err)}`,
    'unreachable',
    undefined,
    canReboot,
  );
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
