/**
 * The smallest operator built from a tsyringe container (`@capstan/runtime/tsyringe`): the
 * container holds the manager's parts, and the reconciler class is resolved from it. Read
 * `examples/greeting` first: this one differs only in how the reconciler gets its dependencies.
 */
import type { Controller, Manager } from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { containerFor, reconcilerFrom } from '@capstan/runtime/tsyringe';
import { KeyCountReconciler, OPT_IN_LABEL } from './reconciler.js';

export { KEYS_ANNOTATION, KeyCountReconciler, keyCount, OPT_IN_LABEL } from './reconciler.js';

/** Adds the key-count controller to `manager`, its reconciler built by a container of the manager's parts. */
export function addKeyCount(manager: Manager): Controller {
  const reconciler = reconcilerFrom(containerFor(manager), KeyCountReconciler);
  return manager
    .controllerBuilder()
    .named('key-count')
    .for(ConfigMap, { labelSelector: `${OPT_IN_LABEL}=true` })
    .build(reconciler);
}
