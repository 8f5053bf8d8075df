/**
 * @packageDocumentation
 * `@capstan/capvcd`: a Cluster API infrastructure provider for VMware Cloud Director that passes
 * Cluster API's bootstrap data to the VM as it is, marks a machine provisioned once its VM is on
 * with an IP, and never waits on a VCD task inside a reconcile. {@link addCapvcd} adds its two
 * controllers to a manager; the pure decisions, the VCD client and the API are exported for tests
 * and tools.
 */
export * from './api/index.js';
export { VCDClusterReconciler } from './cluster/reconciler.js';
export * from './credentials.js';
export * from './decide/affinity.js';
export * from './decide/cluster.js';
export * from './decide/drift.js';
export * from './decide/hardware.js';
export * from './decide/machine.js';
export * from './decide/nics.js';
export {
  addCapvcdFlags,
  type CapvcdCommandLine,
  type CapvcdFlags,
  capvcdOptionsFromFlags,
  parseCapvcdArgs,
} from './flags.js';
export * from './guestinfo.js';
export { VCDMachineReconciler } from './machine/reconciler.js';
export { CAPVCD_MANAGER } from './manager-name.js';
export { CapvcdMetrics } from './metrics.js';
export * from './naming.js';
export {
  addCapvcd,
  type CapvcdHandle,
  type CapvcdOptions,
  DEFAULT_DRIFT_PERIOD_MS,
} from './operator.js';
export { capvcdPermissions } from './permissions.js';
export { CAPVCD_RBAC, rbacWiring } from './rbac.js';
export { SecretKeys } from './scope.js';
export * from './takeover.js';
export { VcdClient } from './vcd/client.js';
export { type Connection, Connections } from './vcd/connections.js';
export { VcdError } from './vcd/errors.js';
export { type Credentials, Session } from './vcd/session.js';
export {
  type CallInfo,
  Site,
  type SiteOptions,
  SUPPORTED_VERSIONS,
  type VcdRequest,
  type VcdTransport,
} from './vcd/site.js';
