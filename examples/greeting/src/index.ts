/** @packageDocumentation The Greeting example: a CRD whose reconciler owns a ConfigMap and reports conditions. */
export { type Greeting, GreetingType } from './api/index.js';
export { configMapNameFor, renderGreeting } from './decide/render.js';
export { parseGreetingArgs } from './flags.js';
export { GREETING_MANAGER } from './manager-name.js';
export { addGreeting, GREETING_WEBHOOKS, type GreetingOptions } from './operator.js';
export { GREETING_RBAC, rbacWiring } from './rbac.js';
export { GreetingReconciler } from './reconciler.js';
export { DEFAULT_MESSAGE, GreetingDefaulter, GreetingValidator, PROTECTED_ANNOTATION } from './webhooks.js';
