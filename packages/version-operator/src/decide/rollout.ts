/**
 * How far a component's workload has rolled out at what the operator last applied, read from the
 * Deployment's or DaemonSet's own status (written by kube-controller-manager). Pure.
 */
import type { ProtocolName } from '@capstan/reboot-protocol';
import { type ComponentStatus, PROTOCOL_ANNOTATION, stackLabels } from '../api/reboot-stack.js';

/** The fields of a Deployment or DaemonSet this module reads. */
export interface WorkloadObject {
  kind?: string;
  metadata: { generation?: number };
  spec?: {
    replicas?: number;
    template?: { metadata?: { annotations?: Record<string, string> } };
  };
  status?: Record<string, unknown>;
}

/** A workload's rollout as numbers, whatever its kind. */
export interface Rollout {
  /** The version and protocol its pod template carries. */
  version?: string;
  protocol?: ProtocolName;
  /** The controller has seen the latest spec. */
  observed: boolean;
  desired: number;
  updated: number;
  available: number;
  /** Every wanted pod runs the latest template and is available. */
  complete: boolean;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The rollout of a Deployment or DaemonSet (by `kind`). */
export function rolloutOf(workload: WorkloadObject): Rollout {
  const status = workload.status ?? {};
  const annotations = workload.spec?.template?.metadata?.annotations ?? {};
  const observed = num(status.observedGeneration) >= num(workload.metadata.generation);
  const daemonSet = workload.kind === 'DaemonSet';
  const desired = daemonSet ? num(status.desiredNumberScheduled) : (workload.spec?.replicas ?? 1);
  const updated = daemonSet ? num(status.updatedNumberScheduled) : num(status.updatedReplicas);
  const available = daemonSet ? num(status.numberAvailable) : num(status.availableReplicas);
  // A Deployment also counts old pods in availableReplicas: complete means no old ones are left.
  const total = daemonSet ? num(status.currentNumberScheduled) : num(status.replicas);
  const complete = observed && updated === desired && available >= desired && total === desired;
  return {
    version: annotations[stackLabels.version],
    protocol: annotations[PROTOCOL_ANNOTATION] as ProtocolName | undefined,
    observed,
    desired,
    updated,
    available,
    complete,
  };
}

/** Whether `rollout` is complete at `version` and `protocol`. */
export function completeAt(rollout: Rollout | undefined, version: string, protocol: ProtocolName): boolean {
  return rollout?.complete === true && rollout.version === version && rollout.protocol === protocol;
}

/** The status the stack reports for one component. */
export function componentStatus(
  rollout: Rollout | undefined,
  blocked: boolean,
  previous: ComponentStatus | undefined,
  now: Date,
): ComponentStatus {
  if (blocked || rollout === undefined) {
    return {
      ...previous,
      rollout: rollout === undefined ? 'Pending' : 'Blocked',
      updated: rollout?.updated ?? 0,
      available: rollout?.available ?? 0,
      desired: rollout?.desired ?? 0,
    };
  }
  const sameVersion = previous?.version === rollout.version && previous?.rollout === 'Complete';
  const status: ComponentStatus = {
    version: rollout.version,
    rollout: rollout.complete ? 'Complete' : 'RollingOut',
    updated: rollout.updated,
    available: rollout.available,
    desired: rollout.desired,
  };
  if (rollout.complete)
    status.completedAt = sameVersion && previous?.completedAt ? previous.completedAt : now.toISOString();
  return status;
}
