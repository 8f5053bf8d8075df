/**
 * @packageDocumentation
 * Placeholder entry point: this package is laid out by the foundation issue and filled by its own issue.
 */
export {};
