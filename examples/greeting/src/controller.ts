import { generationChanged, type Manager } from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { GreetingType } from './api.js';
import { GreetingReconciler } from './reconciler.js';

/**
 * Wires the Greeting controller into a manager: reconcile Greetings on spec changes
 * (`generationChanged` skips our own status writes), and whenever an owned ConfigMap changes.
 */
export function addGreetingController(manager: Manager) {
  return manager
    .controllerBuilder()
    .named('greeting')
    .for(GreetingType, { predicates: [generationChanged] })
    .owns(ConfigMap)
    .build(new GreetingReconciler(manager.client, manager.events));
}
