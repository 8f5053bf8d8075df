/**
 * The client module: the transport seam (`ApiTransport`), the HTTP transport for real servers, the
 * typed `Client` reconcilers use, errors, built-in kinds and kubeconfig loading.
 */
export * from './builtin.js';
export type { CachedReader } from './cached-reader.js';
export * from './client.js';
export * from './errors.js';
export * from './http-transport.js';
export * from './http-watch.js';
export * from './kubeconfig.js';
export * from './response-error.js';
export * from './rest-request.js';
export type * from './transport.js';
export * from './types.js';
export * from './watch-decoder.js';
