/**
 * The safe default reboot policy the version operator owns: when a cluster has no RebootGroup, it
 * gets two: the control plane first and one node at a time, then the workers a percentage at a
 * time. Management policy, not control: the coordinator only realises what the groups say.
 */
import { REBOOT_GROUP_API_VERSION, rebootGroupResource } from '@capstan/reboot-protocol';
import { defineResource, type KubeObject } from '@capstan/runtime';
import { stackLabels, VERSION_OPERATOR_MANAGER } from '../api/reboot-stack.js';

/** The label of control-plane nodes. */
export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';

/** The workers' budget of the default policy. */
export const DEFAULT_WORKER_BUDGET = '25%';

/** A RebootGroup as the version operator writes it (its schema is the coordinator's). */
export interface RebootGroupObject extends KubeObject {
  spec: Record<string, unknown>;
  status?: { observedGeneration?: number };
}

/** The RebootGroup kind, at the coordinates the protocol package publishes. */
export const RebootGroupKind = defineResource<RebootGroupObject>(rebootGroupResource);

/**
 * The default groups for `stack`, labelled as the stack's; the workers' budget is the stack's
 * `workersMaxUnavailable` (default {@link DEFAULT_WORKER_BUDGET}).
 */
export function defaultRebootGroups(
  stack: string,
  workersMaxUnavailable: number | string = DEFAULT_WORKER_BUDGET,
): RebootGroupObject[] {
  const labels = { [stackLabels.managedBy]: VERSION_OPERATOR_MANAGER, [stackLabels.stack]: stack };
  const selector = (operator: 'Exists' | 'DoesNotExist') => ({
    matchExpressions: [{ key: CONTROL_PLANE_LABEL, operator }],
  });
  return [
    {
      apiVersion: REBOOT_GROUP_API_VERSION,
      kind: 'RebootGroup',
      metadata: { name: 'control-plane', labels },
      spec: { nodeSelector: selector('Exists'), maxUnavailable: 1, order: 0 },
    },
    {
      apiVersion: REBOOT_GROUP_API_VERSION,
      kind: 'RebootGroup',
      metadata: { name: 'workers', labels },
      spec: { nodeSelector: selector('DoesNotExist'), maxUnavailable: workersMaxUnavailable, order: 1 },
    },
  ];
}
