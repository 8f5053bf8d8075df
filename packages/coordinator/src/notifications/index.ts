/** Webhook notifications of reboot cycles (see `docs/notifications.md`). */
export * from './decide.js';
export * from './delivery.js';
export * from './flags.js';
export * from './notifier.js';
export * from './payload.js';
export * from './template.js';
