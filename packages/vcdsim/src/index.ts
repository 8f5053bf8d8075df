/**
 * @packageDocumentation
 * `@capstan/vcdsim`: a VMware Cloud Director API simulator over real HTTPS, for tests and the demo.
 * Start it with {@link startVcdSim}; see the package README for the paths and media types served.
 */
export { Faults, type RequestMatch } from './faults/faults.js';
export { type Answer, callSim, type Endpoint } from './http-client.js';
export type { Inspect, PoolUsage } from './inspect/inspect.js';
export type { LogEntry } from './inspect/log.js';
export { allocate, type IpRange, inRanges, poolSize } from './model/ippool.js';
export type * from './model/types.js';
export { VmStatus } from './model/types.js';
export { type Filter, FiqlError, formatFiql, matches, parseFiql } from './query/fiql.js';
export { buildWorld, parseSeed, readSeedFile, SeedError } from './seed/load.js';
export type * from './seed/schema.js';
export { VcdError } from './server/errors.js';
export type { InProcessRequest, ServedAnswer } from './server/server.js';
export { CURRENT_VERSION, SUPPORTED_VERSIONS } from './server/versions.js';
export type { BootedVm, BootHook } from './simulator.js';
export { IN_PROCESS_URL, startVcdSim, type VcdSim, type VcdSimOptions } from './start.js';
export { isTerminal, step, type TaskEvent, type TaskState, type TaskStatus } from './tasks/machine.js';
export type { OwnerRef, Task } from './tasks/runner.js';
export { generateTls, type TlsMaterial } from './tls/ca.js';
