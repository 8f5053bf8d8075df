/** The controller's wiring: which kinds it watches and the reconciler it runs, under a finalizer. */
import { isNotFound, type Manager, withFinalizer } from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { WidgetType } from './api/generated.js';
import { configMapKey, reconcileWidget, WIDGET_FINALIZER } from './reconciler.js';

/** Adds the Widget controller to a manager: Widgets, and the ConfigMaps they own. */
export function addWidget(manager: Manager) {
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
