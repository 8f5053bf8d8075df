/**
 * Wiring: the RebootStack controller added to a manager (leader-only, like every controller).
 * It is woken by its stacks and by the Deployments and DaemonSets it created (by their stack
 * label), and polls while a rollout or a migration runs.
 */
import type { Controller, KubeObject, Manager, Request } from '@capstan/runtime';
import { DaemonSet, Deployment } from '@capstan/runtime/client';
import { RebootStackType, stackLabels, VERSION_OPERATOR_MANAGER } from './api/reboot-stack.js';
import { type Catalogue, shippedCatalogue } from './catalogue.js';
import type { VersionOperatorOptions } from './flags.js';
import { versionOperatorPermissions } from './permissions.js';
import { RebootStackReconciler } from './reconciler.js';

/** What {@link addVersionOperator} added. */
export interface VersionOperatorHandle {
  controller: Controller;
  reconciler: RebootStackReconciler;
}

const toStack = (object: KubeObject): Request[] => {
  const stack = object.metadata.labels?.[stackLabels.stack];
  return stack ? [{ name: stack }] : [];
};

/**
 * Adds the version operator to `manager`. `catalogue` defaults to the shipped one (the version the
 * installed coordinator and agent packages publish).
 */
export function addVersionOperator(
  manager: Manager,
  options: Partial<VersionOperatorOptions> & { catalogue?: Catalogue } = {},
): VersionOperatorHandle {
  const catalogue = options.catalogue ?? shippedCatalogue();
  const reconciler = new RebootStackReconciler(manager.client, catalogue, {
    rolloutPollMs: options.rolloutPollMs,
    migrationStallMs: options.migrationStallMs,
  });
  const owned = { labelSelector: `${stackLabels.managedBy}=${VERSION_OPERATOR_MANAGER}` };
  const controller = manager
    .controllerBuilder()
    .named('reboot-stack')
    .for(RebootStackType)
    .watches(Deployment, toStack, owned)
    .watches(DaemonSet, toStack, owned)
    .build(reconciler);
  for (const permission of versionOperatorPermissions(catalogue)) manager.permissions.add(permission);
  return { controller, reconciler };
}
