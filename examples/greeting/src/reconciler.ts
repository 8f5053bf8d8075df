import {
  type Client,
  createOrUpdate,
  type EventRecorder,
  isNotFound,
  type ReconcileContext,
  type Reconciler,
  type Request,
  setCondition,
  setControllerReference,
} from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { type Greeting, GreetingType } from './api/index.js';
import { configMapNameFor, renderGreeting } from './decide/render.js';

/**
 * Makes a Greeting's ConfigMap exist with the rendered message, owned by the Greeting (so it is
 * garbage-collected with it, and a change to it brings us back here), and reports a Ready condition.
 */
export class GreetingReconciler implements Reconciler {
  constructor(
    private readonly client: Client,
    private readonly events: EventRecorder,
  ) {}

  async reconcile(request: Request, { log }: ReconcileContext): Promise<void> {
    let greeting: Greeting;
    try {
      greeting = await this.client.get(GreetingType, request);
    } catch (err) {
      if (isNotFound(err)) return; // deleted: its ConfigMap goes with it (owner reference)
      throw err;
    }
    if (greeting.metadata.deletionTimestamp) return;

    const name = configMapNameFor(greeting);
    const { result } = await createOrUpdate(
      this.client,
      ConfigMap,
      { namespace: request.namespace, name },
      (cm: ConfigMap) => {
        setControllerReference(GreetingType, greeting, cm);
        cm.data = { greeting: renderGreeting(greeting.spec) };
      },
    );
    if (result !== 'unchanged') {
      log.info({ configMap: name, result }, 'configmap written');
      this.events.record(GreetingType, greeting, {
        type: 'Normal',
        reason: result === 'created' ? 'Created' : 'Updated',
        action: 'WriteConfigMap',
        note: `ConfigMap ${name} ${result}`,
      });
    }

    const generation = greeting.metadata.generation;
    const conditions = setCondition(greeting.status?.conditions, {
      type: 'Ready',
      status: 'True',
      reason: 'ConfigMapWritten',
      message: `ConfigMap ${name} holds the greeting`,
      observedGeneration: generation,
    });
    const status = { observedGeneration: generation, configMapName: name, conditions };
    // Idempotent: an unchanged status is not written again.
    if (JSON.stringify(status) !== JSON.stringify(greeting.status)) {
      await this.client.patchStatus(GreetingType, request, 'merge', { status });
    }
  }
}
