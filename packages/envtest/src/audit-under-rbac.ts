/**
 * An operator's RBAC verified by use: run its wiring as its ServiceAccount, bound to exactly its
 * generated roles, through a transport that records each request, and compare.
 */
import type { Manager, RbacWiringOptions } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { auditRbac, type RbacAudit, recordingTransport } from '@capstan/runtime/testing';
import type { ControlPlane } from './control-plane.js';
import type { ManifestObject } from './manifests.js';
import { type ServiceAccountRef, serviceAccountUnder } from './rbac-under-test.js';

/** The operator under audit. */
export interface RbacUnderAudit {
  /** Its ServiceAccount (what its roles are bound to). */
  serviceAccount: ServiceAccountRef;
  /** Its RBAC objects: `readManifests` of its generated `deploy/rbac.yaml`. */
  rbac: readonly ManifestObject[];
  /**
   * Its manager as `capstan gen rbac` reads it (its `rbacWiring`), given the recording transport,
   * silent logs and no metrics or probe servers.
   */
  wiring: (options: RbacWiringOptions) => Manager;
  /** Grants the scenario does not reach, each with why it stays (see `auditRbac`). */
  justified?: Readonly<Record<string, string>>;
}

/**
 * Runs `operator.wiring` as its ServiceAccount (once its RBAC is in force) while `scenario` drives
 * it as the admin, stops it, and answers the audit of every request it sent against its manager's
 * permissions: what was refused, and which grants no request used.
 */
export async function auditUnderRbac(
  plane: ControlPlane,
  operator: RbacUnderAudit,
  scenario: () => Promise<void>,
): Promise<RbacAudit> {
  const kubeConfig = await serviceAccountUnder(plane, operator.serviceAccount, operator.rbac);
  const { transport, requests } = recordingTransport(new HttpTransport(kubeConfig));
  const manager = operator.wiring({
    transport,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logLevel: 'silent',
  });
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  try {
    await scenario();
  } finally {
    stop.abort();
    await running;
  }
  return auditRbac(manager.permissions.list(), requests, operator.justified);
}
