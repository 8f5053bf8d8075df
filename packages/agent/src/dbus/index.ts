export * from './connection.js';
export * from './fd-passing.js';
export * from './logind.js';
export * from './reboot-failed-error.js';
export * from './update-engine.js';
