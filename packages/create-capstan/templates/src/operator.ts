/** The controller's wiring: which kinds it watches and the reconciler it runs. */
import type { Manager } from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { WidgetType } from './api/generated.js';
import { reconcileWidget } from './reconciler.js';

/** Adds the Widget controller to a manager: Widgets, and the ConfigMaps they own. */
export function addWidget(manager: Manager) {
  return manager
    .controllerBuilder()
    .named('widget')
    .for(WidgetType)
    .owns(ConfigMap)
    .build((request, context) => reconcileWidget(manager.client, request, context));
}
