/**
 * The Widget controller: each Widget gets a ConfigMap holding its message, owned by the Widget (a
 * change to it brings the Widget back to the queue), and a Ready condition in its status. A
 * finalizer holds each Widget until its ConfigMap is deleted: where cleanup of anything outside
 * the cluster (a cloud resource, a DNS record) would go.
 */
import {
  type Client,
  createOrUpdate,
  isNotFound,
  type Manager,
  type ObjectReconcileContext,
  setCondition,
  setControllerReference,
  withFinalizer,
} from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { type Widget, WidgetType } from './api/generated.js';

/** Held on each Widget until what it made is gone. */
export const WIDGET_FINALIZER = 'example.com/__NAME__';

/** Adds the Widget controller to a manager. */
export function addWidgetController(manager: Manager) {
  const client = manager.client;
  return manager
    .controllerBuilder()
    .named('widget')
    .for(WidgetType)
    .owns(ConfigMap, { verbs: ['list', 'watch', 'create', 'update', 'delete'] })
    .writesStatus(['patch'])
    .buildObjects(
      withFinalizer(client, WidgetType, WIDGET_FINALIZER, {
        apply: (widget, context) => reconcileWidget(client, widget, context),
        cleanup: async (widget) => {
          await client.delete(ConfigMap, configMapKey(widget)).catch((err: unknown) => {
            if (!isNotFound(err)) throw err; // gone already: a cleanup run again
          });
        },
      }),
    );
}

const configMapKey = (widget: Widget) => ({
  namespace: widget.metadata.namespace ?? 'default',
  name: `${widget.metadata.name}-message`,
});

/** Makes the world match one Widget; running it again with nothing changed writes nothing. */
export async function reconcileWidget(
  client: Client,
  widget: Widget,
  { log, request }: ObjectReconcileContext,
) {
  const key = configMapKey(widget);
  const { result } = await createOrUpdate(client, ConfigMap, key, (cm: ConfigMap) => {
    setControllerReference(WidgetType, widget, cm);
    cm.data = { message: widget.spec.message };
  });
  if (result !== 'unchanged') log.info({ configMap: key.name, result }, 'configmap written');

  const generation = widget.metadata.generation;
  const observed = generation === undefined ? {} : { observedGeneration: generation };
  const conditions = setCondition(widget.status?.conditions, {
    type: 'Ready',
    status: 'True',
    reason: 'ConfigMapWritten',
    message: `ConfigMap ${key.name} holds the message`,
    ...observed,
  });
  const status = { ...observed, configMapName: key.name, conditions };
  if (JSON.stringify(status) !== JSON.stringify(widget.status)) {
    await client.patchStatus(WidgetType, request, 'merge', { status });
  }
}
