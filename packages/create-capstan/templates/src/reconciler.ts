/**
 * The Widget controller: each Widget gets a ConfigMap holding its message, owned by the Widget (so
 * it goes when the Widget goes, and a change to it brings the Widget back to the queue), and a
 * Ready condition in its status.
 */
import {
  type Client,
  createOrUpdate,
  isNotFound,
  type ReconcileContext,
  type Request,
  setCondition,
  setControllerReference,
} from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { type Widget, WidgetType } from './api/generated.js';
import { messageConfigMap } from './decide/message.js';

/** Makes the world match one Widget; running it again with nothing changed writes nothing. */
export async function reconcileWidget(client: Client, request: Request, { log }: ReconcileContext) {
  let widget: Widget;
  try {
    widget = await client.get(WidgetType, request);
  } catch (err) {
    if (isNotFound(err)) return; // deleted: its ConfigMap goes with it (owner reference)
    throw err;
  }
  if (widget.metadata.deletionTimestamp) return;

  const { name, data } = messageConfigMap(widget);
  const key = { namespace: widget.metadata.namespace ?? 'default', name };
  const { result } = await createOrUpdate(client, ConfigMap, key, (cm: ConfigMap) => {
    setControllerReference(WidgetType, widget, cm);
    cm.data = data;
  });
  if (result !== 'unchanged') log.info({ configMap: name, result }, 'configmap written');

  const generation = widget.metadata.generation;
  const observed = generation === undefined ? {} : { observedGeneration: generation };
  const conditions = setCondition(widget.status?.conditions, {
    type: 'Ready',
    status: 'True',
    reason: 'ConfigMapWritten',
    message: `ConfigMap ${name} holds the message`,
    ...observed,
  });
  const status = { ...observed, configMapName: name, conditions };
  if (JSON.stringify(status) !== JSON.stringify(widget.status)) {
    await client.patchStatus(WidgetType, request, 'merge', { status });
  }
}
