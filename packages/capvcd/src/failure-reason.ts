/**
 * The condition reason for an error a reconcile stops at, one table for both reconcilers: what
 * the object waits for (NotReady), a reference VCD does not know, or VCD's own error code. Any
 * other error is a bug, not a state to report: the caller rethrows it.
 */
import { NotReady } from './scope.js';
import { UnknownReference, VcdError } from './vcd/errors.js';

/** VCD's minor error codes a user can act on, by the reason they are reported under. */
const VCD_REASONS: Readonly<Record<string, string>> = {
  BUSY_ENTITY: 'VCDBusy',
  NO_FREE_IP: 'NoFreeIP',
  VIP_REFUSED: 'VIPRefused',
};

/** The reason to report `err` under, or undefined for an error that is not a reportable state. */
export function failureReason(err: unknown): string | undefined {
  if (err instanceof NotReady) return err.reason;
  if (err instanceof UnknownReference) return 'UnknownReference';
  if (err instanceof VcdError) {
    // Own keys only: a code such as "constructor" must not read Object's prototype.
    return Object.hasOwn(VCD_REASONS, err.minorErrorCode) ? VCD_REASONS[err.minorErrorCode] : 'VCDError';
  }
  return undefined;
}
