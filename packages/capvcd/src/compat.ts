/**
 * CAPVCD's fields this provider accepts (so CAPVCD's manifests apply, kubectl's strict validation
 * included) but does not act on: never dropped in silence, named in the `SpecHonoured` condition.
 */
import type { KubeObject } from '@capstan/runtime';
import { Conditions } from './api/keys.js';
import type { VCDClusterSpec, VCDMachineSpec } from './api/types.js';
import { condition, type WithConditions } from './status.js';

/** Why each field is not acted on (shown in the condition). */
const WHY: Record<string, string> = {
  rdeId: 'no RDE is kept',
  parentUid: 'no RDE is kept',
  useAsManagementCluster: 'no RDE is kept',
  proxyConfigSpec: 'set the proxy in the KubeadmConfig files',
  ovcdZoneConfigMap: 'zones come from multiZoneSpec.zones',
  'multiZoneSpec.zoneTopology':
    'zones are VDCs of the organization, the cluster’s vApp in each; CAPVCD’s per-pool vApps are kept only for a cluster taken over',
  'multiZoneSpec.dcGroupConfig': 'a zone’s network may be a DC group’s; nothing else of DC groups is read',
  enableNvidiaGPU: 'use a placement or vGPU policy',
  bootstrapped: 'readiness comes from VCD, not from the guest',
};

const set = (v: unknown): boolean =>
  v === true ||
  (typeof v === 'string' && v !== '') ||
  (typeof v === 'object' && v !== null && Object.values(v).some(set));

/** The CAPVCD-only fields a VCDCluster spec sets (empty strings, false and empty objects are unset). */
export function unactedClusterFields(spec: VCDClusterSpec): string[] {
  const fields: Array<[string, unknown]> = [
    ['rdeId', spec.rdeId],
    ['parentUid', spec.parentUid],
    ['useAsManagementCluster', spec.useAsManagementCluster],
    ['proxyConfigSpec', spec.proxyConfigSpec],
    ['ovcdZoneConfigMap', spec.ovcdZoneConfigMap],
    ['multiZoneSpec.zoneTopology', spec.multiZoneSpec?.zoneTopology],
    // An empty dcGroupConfig ({}) is how CAPVCD's DCGroup topology is switched on.
    ['multiZoneSpec.dcGroupConfig', spec.multiZoneSpec?.dcGroupConfig === undefined ? undefined : true],
  ];
  return fields.filter(([, v]) => set(v)).map(([name]) => name);
}

/** The CAPVCD-only fields a VCDMachine spec sets. */
export function unactedMachineFields(spec: VCDMachineSpec): string[] {
  return (['enableNvidiaGPU', 'bootstrapped'] as const).filter((f) => spec[f] === true);
}

/** SpecHonoured: True when every field set is acted on, else False naming the others and why. */
export function specHonouredCondition(status: WithConditions, object: KubeObject, unacted: string[]): void {
  condition(
    status,
    object,
    Conditions.SpecHonoured,
    unacted.length === 0,
    unacted.length === 0 ? 'AllFieldsActedOn' : 'FieldsNotActedOn',
    unacted.length === 0 ? '' : `set but not acted on: ${unacted.map((f) => `${f} (${WHY[f]})`).join(', ')}`,
  );
}
