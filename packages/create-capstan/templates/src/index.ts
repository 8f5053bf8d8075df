/** The operator as a library: its kind, its decisions, its command line and its wiring. */
export { type Widget, WidgetType } from './api/generated.js';
export { type MessageConfigMap, messageConfigMap } from './decide/message.js';
export { parseWidgetArgs, type WidgetOptions } from './flags.js';
export { addWidget } from './operator.js';
export { reconcileWidget } from './reconciler.js';
