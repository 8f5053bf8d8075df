/** The provider's API: kinds, CAPI kinds it reads, names, CRDs. */
export * from './capi.js';
export * from './crds.js';
export * from './ipam.js';
export * from './keys.js';
export * from './types.js';
