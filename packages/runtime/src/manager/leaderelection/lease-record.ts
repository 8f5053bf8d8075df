/**
 * The leader election record a Lease carries, as pure functions of the spec: what "the record
 * changed" compares, and the spec written to hold or to release the lease.
 */
import type { Lease } from '../../client/builtin.js';
import { isoTimestamp } from '../../iso-time.js';

/** The spec of a `coordination.k8s.io/v1` Lease. */
export type LeaseSpec = NonNullable<Lease['spec']>;

/** Formats milliseconds since the epoch as a Kubernetes MicroTime. */
export function microTime(ms: number): string {
  return isoTimestamp(ms).replace(/Z$/, '000Z');
}

/** The leader election fields of `spec` as one string: two records are the same iff these are equal. */
export function electionRecord(spec: LeaseSpec): string {
  return JSON.stringify([
    spec.holderIdentity ?? '',
    spec.leaseDurationSeconds ?? null,
    spec.acquireTime ?? null,
    spec.renewTime ?? null,
    spec.leaseTransitions ?? null,
  ]);
}

/**
 * The spec that makes `identity` the holder at `now`: a renewal when it already holds the lease
 * (acquire time and transitions kept), a take-over otherwise (one more transition).
 */
export function heldSpec(
  spec: LeaseSpec,
  identity: string,
  leaseDurationSeconds: number,
  now: number,
): LeaseSpec {
  const ours = spec.holderIdentity === identity;
  return {
    ...spec,
    holderIdentity: identity,
    leaseDurationSeconds,
    acquireTime: ours && spec.acquireTime ? spec.acquireTime : microTime(now),
    renewTime: microTime(now),
    leaseTransitions: (spec.leaseTransitions ?? 0) + (ours ? 0 : 1),
  };
}

/** The spec that hands the lease over: holder cleared, duration 1 s, so a standby acquires at its next try. */
export function releasedSpec(spec: LeaseSpec, now: number): LeaseSpec {
  return {
    ...spec,
    holderIdentity: '',
    leaseDurationSeconds: 1,
    acquireTime: microTime(now),
    renewTime: microTime(now),
    leaseTransitions: spec.leaseTransitions ?? 0,
  };
}
