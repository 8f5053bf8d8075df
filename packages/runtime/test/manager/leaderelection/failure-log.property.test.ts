/** A lease failure that repeats every retry is a warning once, then debug until it changes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiError } from '../../../src/api/errors.js';
import { describeLeaseFailure, LeaseFailureLog } from '../../../src/manager/leaderelection/failure-log.js';

const failures = [
  { action: 'read', err: apiError(403, 'Forbidden', 'leases is forbidden') },
  { action: 'create', err: apiError(404, 'NotFound', 'namespaces "x" not found') },
  { action: 'update', err: apiError(500, 'InternalError', 'etcd timeout') },
  { action: 'read', err: new Error('connect ECONNREFUSED') },
];

describe('LeaseFailureLog', () => {
  it('warns exactly when a failure differs from the last one since a success', () => {
    const step = fc.oneof(fc.constant('ok' as const), fc.integer({ min: 0, max: failures.length - 1 }));
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const log = new LeaseFailureLog();
        let last: number | undefined;
        for (const s of steps) {
          if (s === 'ok') {
            log.succeeded();
            last = undefined;
            continue;
          }
          const { action, err } = failures[s] as (typeof failures)[number];
          const report = log.report(action, 'ns', 'lease', err);
          expect(report.level).toBe(s === last ? 'debug' : 'warn');
          expect(report.message).toBe(describeLeaseFailure(action, 'ns', 'lease', err));
          last = s;
        }
      }),
    );
  });

  it('names the fix for a 403 and for a missing namespace', () => {
    expect(describeLeaseFailure('read', 'ops', 'l', failures[0]?.err)).toMatch(
      /forbidden\. Grant this identity get, create and update on leases .* namespace "ops"/,
    );
    expect(describeLeaseFailure('create', 'ops', 'l', failures[1]?.err)).toMatch(
      /namespace "ops" does not exist/,
    );
  });
});
