/** @packageDocumentation The Greeting example: a CRD whose reconciler owns a ConfigMap and reports conditions. */
export { configMapNameFor, type Greeting, GreetingType, renderGreeting } from './api.js';
export { addGreetingController, GREETING_WEBHOOKS, type GreetingControllerOptions } from './controller.js';
export { GREETING_RBAC, rbacWiring } from './rbac.js';
export { GreetingReconciler } from './reconciler.js';
export { DEFAULT_MESSAGE, GreetingDefaulter, GreetingValidator, PROTECTED_ANNOTATION } from './webhooks.js';
