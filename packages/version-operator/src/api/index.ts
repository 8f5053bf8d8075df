export * from './reboot-stack.js';
export * from './validation.js';
