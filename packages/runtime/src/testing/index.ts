/**
 * The test kit (`@capstan/runtime/testing`): a virtual clock and an in-memory, fault-injecting
 * API server that implements the same transport as a real cluster, and `eventually` to poll for a
 * condition in tests that run on real time (a real API server, real processes) and `WatchRecord`
 * to keep every state a watch delivers; and the reconciler conformance harness (`checkConformance`).
 */

export {
  CertificateAuthority,
  type CertPair,
  LOOPBACK_HOSTS,
  writePair,
  writeServiceAccountKeys,
} from '../pki/certificate-authority.js';
export * from './conformance/index.js';
export { type EventuallyOptions, type EventuallyProbe, eventually } from './eventually.js';
export {
  FakeCluster,
  type FakeClusterOptions,
  type FakeRequest,
  type FaultHook,
  type KindOptions,
  type Verb,
} from './fake-cluster.js';
export { FakeWatch } from './fake-watch.js';
export { flushMicrotasks, ManualClock } from './manual-clock.js';
export { type JsonPatchOperation, jsonEqual, jsonPatch, mergePatch } from './patch.js';
export {
  type AuditedRequest,
  auditRbac,
  type RbacAudit,
  recordingTransport,
  type UnusedGrant,
} from './rbac-audit.js';
export { WatchRecord, type WatchRecordOptions } from './watch-record.js';
export { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';
