/**
 * The update_engine D-Bus protocol (Flatcar / CoreOS), shared by the agent's source and the test
 * service so that both sides agree on names, signatures and value types.
 */

/** Well-known bus name of update_engine. */
export const UPDATE_ENGINE_NAME = 'com.coreos.update1';
/** Object path of update_engine's manager. */
export const UPDATE_ENGINE_PATH = '/com/coreos/update1';
/** Interface of update_engine's manager. */
export const UPDATE_ENGINE_INTERFACE = 'com.coreos.update1.Manager';
/** Signature of `GetStatus`'s reply and of the `StatusUpdate` signal. */
export const UPDATE_ENGINE_STATUS_SIGNATURE = 'xdssx';

/** The `current_operation` strings update_engine reports. */
export const UpdateStatus = {
  Idle: 'UPDATE_STATUS_IDLE',
  CheckingForUpdate: 'UPDATE_STATUS_CHECKING_FOR_UPDATE',
  UpdateAvailable: 'UPDATE_STATUS_UPDATE_AVAILABLE',
  Downloading: 'UPDATE_STATUS_DOWNLOADING',
  Verifying: 'UPDATE_STATUS_VERIFYING',
  Finalizing: 'UPDATE_STATUS_FINALIZING',
  UpdatedNeedReboot: 'UPDATE_STATUS_UPDATED_NEED_REBOOT',
  ReportingErrorEvent: 'UPDATE_STATUS_REPORTING_ERROR_EVENT',
} as const;

/** One of the {@link UpdateStatus} strings (update_engine may add others; they are passed through). */
export type UpdateStatusName = (typeof UpdateStatus)[keyof typeof UpdateStatus];

/** The five values of `GetStatus` / `StatusUpdate`, with int64 as BigInt as dbus-next delivers them. */
export interface UpdateEngineStatus {
  /** Unix seconds of the last update check. */
  lastCheckedTime: bigint;
  /** Download progress, 0..1. */
  progress: number;
  /** `UPDATE_STATUS_*`. */
  currentOperation: string;
  /** Version being or already installed; empty when none. */
  newVersion: string;
  /** Size in bytes of the new payload. */
  newSize: bigint;
}

/** Thrown when a status body does not have the `xdssx` shape. */
export class InvalidUpdateStatusError extends Error {
  override readonly name = 'InvalidUpdateStatusError';
}

/** Reads a `GetStatus` reply or `StatusUpdate` signal body; throws {@link InvalidUpdateStatusError} on any other shape. */
export function statusFromBody(body: readonly unknown[]): UpdateEngineStatus {
  const [lastCheckedTime, progress, currentOperation, newVersion, newSize] = body;
  if (
    body.length !== 5 ||
    typeof lastCheckedTime !== 'bigint' ||
    typeof progress !== 'number' ||
    typeof currentOperation !== 'string' ||
    typeof newVersion !== 'string' ||
    typeof newSize !== 'bigint'
  ) {
    throw new InvalidUpdateStatusError(`unexpected update_engine status body: ${safeJson(body)}`);
  }
  return { lastCheckedTime, progress, currentOperation, newVersion, newSize };
}

/**
 * Turns a status into an `xdssx` body, validating first: dbus-next throws from inside signal
 * emission on a bad value, which would otherwise surface far from the caller.
 */
export function statusToBody(status: UpdateEngineStatus): [bigint, number, string, string, bigint] {
  const { lastCheckedTime, progress, currentOperation, newVersion, newSize } = status;
  assertInt64('lastCheckedTime', lastCheckedTime);
  assertInt64('newSize', newSize);
  if (typeof progress !== 'number' || !Number.isFinite(progress)) {
    throw new InvalidUpdateStatusError(`progress must be a finite number, got ${String(progress)}`);
  }
  for (const [field, value] of [
    ['currentOperation', currentOperation],
    ['newVersion', newVersion],
  ] as const) {
    if (typeof value !== 'string' || value.includes('\0')) {
      throw new InvalidUpdateStatusError(`${field} must be a string without NUL, got ${String(value)}`);
    }
  }
  return [lastCheckedTime, progress, currentOperation, newVersion, newSize];
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function assertInt64(field: string, value: unknown): void {
  if (typeof value !== 'bigint' || value < INT64_MIN || value > INT64_MAX) {
    throw new InvalidUpdateStatusError(`${field} must be an int64 BigInt, got ${String(value)}`);
  }
}

function safeJson(value: unknown): string {
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
}
