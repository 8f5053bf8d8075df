/**
 * The Widget controller: each Widget gets a ConfigMap holding its message, owned by the Widget (a
 * change to it brings the Widget back to the queue), and a Ready condition in its status. A
 * finalizer holds each Widget until its ConfigMap is deleted: where cleanup of anything outside
 * the cluster (a cloud resource, a DNS record) would go.
 */
import {
  type Client,
  createOrUpdate,
  type ObjectReconcileContext,
  setCondition,
  setControllerReference,
} from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { type Widget, WidgetType } from './api/generated.js';
import { messageConfigMap } from './decide/message.js';

/** Held on each Widget until what it made is gone. */
export const WIDGET_FINALIZER = 'example.com/__NAME__';

/** Where a Widget's ConfigMap lives: its namespace, the name the decision gives it. */
export const configMapKey = (widget: Widget) => ({
  namespace: widget.metadata.namespace ?? 'default',
  name: messageConfigMap(widget).name,
});

/** Makes the world match one Widget; running it again with nothing changed writes nothing. */
export async function reconcileWidget(
  client: Client,
  widget: Widget,
  { log, request }: ObjectReconcileContext,
) {
  const key = configMapKey(widget);
  const { data } = messageConfigMap(widget);
  const { result } = await createOrUpdate(client, ConfigMap, key, (cm: ConfigMap) => {
    setControllerReference(WidgetType, widget, cm);
    cm.data = data;
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
