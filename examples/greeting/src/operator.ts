import { type AdmissionOptions, generationChanged, type Manager } from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { GreetingType } from './api/index.js';
import { GreetingReconciler } from './reconciler.js';
import { GreetingDefaulter, GreetingValidator } from './webhooks.js';

/**
 * Both webhooks fail closed: while no replica answers, Greetings cannot be written, rather than be
 * written undefaulted or unchecked. 5 s is far above what the handlers take and far below the API
 * server's 30 s limit, so an unreachable webhook costs a writer little. (deploy/webhooks.yaml says
 * the same; a test keeps the two equal.)
 */
export const GREETING_WEBHOOKS: AdmissionOptions = { failurePolicy: 'Fail', timeoutSeconds: 5 };

/** Options of {@link addGreeting}. */
export interface GreetingOptions {
  /** Also serve the defaulting and validating webhooks (deploy/webhooks.yaml). Default false. */
  webhooks?: boolean;
}

/**
 * Wires the Greeting controller into a manager: reconcile Greetings on spec changes
 * (`generationChanged` skips our own status writes), and whenever an owned ConfigMap changes.
 * With `webhooks`, the manager also defaults and validates Greetings on every replica.
 */
export function addGreeting(manager: Manager, options: GreetingOptions = {}) {
  const builder = manager
    .controllerBuilder()
    .named('greeting')
    .for(GreetingType, { predicates: [generationChanged], verbs: ['list', 'watch'] })
    // createOrUpdate reads from the cache, then creates or updates: never a get, patch or delete.
    .owns(ConfigMap, { verbs: ['list', 'watch', 'create', 'update'] })
    .writesStatus(['patch']);
  if (options.webhooks) {
    builder
      .withDefaulter(new GreetingDefaulter(), GREETING_WEBHOOKS)
      .withValidator(new GreetingValidator(), GREETING_WEBHOOKS);
  }
  return builder.build(new GreetingReconciler(manager.client, manager.events));
}
