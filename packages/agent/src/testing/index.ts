export * from './fake-logind.js';
export * from './fake-update-engine.js';
export * from './fleet-agent.js';
export * from './private-bus.js';
