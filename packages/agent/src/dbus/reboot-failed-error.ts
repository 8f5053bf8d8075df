/** Why a reboot request failed; see {@link RebootFailedError}. */
export type RebootFailureReason =
  /** `CanReboot` answered something other than "yes" or "challenge". */
  | 'not-allowed'
  /** logind answered `Reboot` with a D-Bus error. */
  | 'dbus-error'
  /** logind did not answer in time. */
  | 'timeout'
  /** The bus or logind could not be reached. */
  | 'unreachable'
  /** The reboot command (`--reboot-method command`) could not run, or exited non-zero. */
  | 'command-failed'
  /** The signal to PID 1 (`--reboot-method signal`) could not be sent. */
  | 'signal-failed';

/**
 * A reboot request that did not go through. The agent must surface it (event, condition,
 * metric): a failed reboot that goes unnoticed leaves a drained node cordoned forever.
 */
export class RebootFailedError extends Error {
  override readonly name = 'RebootFailedError';

  constructor(
    message: string,
    /** What went wrong, for callers that react differently to a refusal and an outage. */
    readonly reason: RebootFailureReason,
    /** The D-Bus error name (`org.freedesktop.DBus.Error.AccessDenied`) when logind sent one. */
    readonly dbusErrorName?: string,
    /** logind's `CanReboot` answer, when it was asked. */
    readonly canReboot?: string,
  ) {
    super(message);
  }
}
