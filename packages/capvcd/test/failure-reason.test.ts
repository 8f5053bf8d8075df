/** One reason table for both reconcilers: what a stopped reconcile reports, and what it rethrows. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failureReason } from '../src/failure-reason.js';
import { NotReady } from '../src/scope.js';
import { UnknownReference, VcdError } from '../src/vcd/errors.js';

describe('failureReason', () => {
  it('names what a user can act on, and VCDError for any other VCD answer', () => {
    expect(failureReason(new NotReady('WaitingForBootstrapData', 'no data yet'))).toBe(
      'WaitingForBootstrapData',
    );
    expect(failureReason(new UnknownReference('network "x"'))).toBe('UnknownReference');
    expect(failureReason(new VcdError(400, 'BUSY_ENTITY', 'busy'))).toBe('VCDBusy');
    expect(failureReason(new VcdError(400, 'NO_FREE_IP', 'none free'))).toBe('NoFreeIP');
    expect(failureReason(new VcdError(400, 'VIP_REFUSED', 'in use'))).toBe('VIPRefused');
    expect(failureReason(new VcdError(500, 'INTERNAL_SERVER_ERROR', 'boom'))).toBe('VCDError');
  });

  it('reports every VCD error and rethrows every error that is not a state', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 599 }),
        fc.oneof(fc.string(), fc.constantFrom('constructor', '__proto__', 'toString')),
        fc.string(),
        (status, code, message) => {
          expect(failureReason(new VcdError(status, code, message))).toMatch(/^[A-Z][A-Za-z]+$/);
          expect(failureReason(new Error(message))).toBeUndefined();
          expect(failureReason(message)).toBeUndefined();
        },
      ),
    );
  });
});
