/** The agent's types: the view its decisions read, its memory, its phases and actions. */
export * from './types.js';
