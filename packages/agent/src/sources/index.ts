export * from './host-mount.js';
export * from './polling-source.js';
export * from './reporter.js';
export * from './sentinel-command-source.js';
export * from './sentinel-file-source.js';
export * from './source.js';
export * from './update-engine-source.js';
