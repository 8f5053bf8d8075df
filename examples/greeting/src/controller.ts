import { ConfigMap, generationChanged, type Manager } from '@capstan/runtime';
import { GreetingType } from './api.js';
import { GreetingReconciler } from './reconciler.js';
import { GreetingDefaulter, GreetingValidator } from './webhooks.js';

/** Options of {@link addGreetingController}. */
export interface GreetingControllerOptions {
  /** Also serve the defaulting and validating webhooks (deploy/webhooks.yaml). Default false. */
  webhooks?: boolean;
}

/**
 * Wires the Greeting controller into a manager: reconcile Greetings on spec changes
 * (`generationChanged` skips our own status writes), and whenever an owned ConfigMap changes.
 * With `webhooks`, the manager also defaults and validates Greetings on every replica.
 */
export function addGreetingController(manager: Manager, options: GreetingControllerOptions = {}) {
  const builder = manager
    .controllerBuilder()
    .named('greeting')
    .for(GreetingType, { predicates: [generationChanged] })
    .owns(ConfigMap);
  if (options.webhooks) builder.withDefaulter(new GreetingDefaulter()).withValidator(new GreetingValidator());
  return builder.build(manager.container.resolve(GreetingReconciler));
}
