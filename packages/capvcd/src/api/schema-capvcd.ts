/**
 * CAPVCD's older versions of our kinds, served so that its manifests and stored objects keep
 * working: `v1beta2` (what CAPVCD 1.1–1.3 store and its `cluster-template.yaml` writes) and
 * `v1beta1` (v1beta2 without extra networks, VM naming templates and the resource map). Their
 * fields are CAPVCD's (api/v1beta2 of vmware/cluster-api-provider-cloud-director); the values this
 * provider refuses in v1beta3 (inline credentials, one-arm load balancers) are refused here too.
 */

import {
  clusterSpecSchema,
  machineSpecSchema,
  machineStatusSchema,
  machineTemplateSpecSchema,
} from './schema.js';
import { machineTemplateStatusSchema } from './schema-template.js';

type Schema = Record<string, unknown>;
type Properties = Record<string, Schema>;

const propertiesOf = (s: Schema) => s.properties as Properties;
/** `schema` with only `keys` of its properties (and extra ones). */
const pick = (schema: Schema, keys: string[], extra: Properties = {}): Schema => ({
  ...schema,
  properties: {
    ...Object.fromEntries(keys.map((k) => [k, propertiesOf(schema)[k] as Schema])),
    ...extra,
  },
});
const str: Schema = { type: 'string' };
const bool: Schema = { type: 'boolean' };

/** Cluster API v1beta1's `Conditions` (with severity), as CAPVCD's v1beta2 status holds them. */
const capiV1beta1Conditions: Schema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['type', 'status'],
    properties: {
      type: { type: 'string', maxLength: 256 },
      status: str,
      severity: { type: 'string', maxLength: 32 },
      lastTransitionTime: { type: 'string', format: 'date-time' },
      reason: { type: 'string', maxLength: 256 },
      message: { type: 'string', maxLength: 10240 },
    },
  },
};

const proxy: Schema = propertiesOf(clusterSpecSchema).proxyConfigSpec as Schema;

/** CAPVCD's Go type always writes `controlPlaneEndpoint` ({host: "", port: 0} when unset). */
const v1beta2Endpoint: Schema = {
  type: 'object',
  properties: {
    host: { type: 'string', maxLength: 512 },
    port: { type: 'integer', format: 'int32', minimum: 0, maximum: 65535 },
  },
};

/**
 * The rules over fields both versions have (not those over `loadBalancerConfigSpec.disabled` or
 * `multiZoneSpec`, which v1beta2 lacks; its `ovdc` may be "" as a zoned v1beta3 object reads).
 */
const sharedRules = (clusterSpecSchema['x-kubernetes-validations'] as Array<{ rule: string }>).filter(
  (r) => !r.rule.includes('.disabled') && !r.rule.includes('multiZoneSpec'),
);

const clusterSpec = pick(
  clusterSpecSchema,
  ['site', 'org', 'ovdc', 'ovdcNetwork', 'userContext', 'rdeId', 'parentUid', 'useAsManagementCluster'],
  {
    controlPlaneEndpoint: v1beta2Endpoint,
    proxyConfigSpec: proxy,
    loadBalancerConfigSpec: pick(propertiesOf(clusterSpecSchema).loadBalancerConfigSpec as Schema, [
      'useOneArm',
      'vipSubnet',
    ]),
  },
);
clusterSpec['x-kubernetes-validations'] = sharedRules;

const resourceMap: Schema = {
  type: 'object',
  properties: {
    ovdcs: {
      type: 'array',
      items: { type: 'object', required: ['id', 'name'], properties: { type: str, id: str, name: str } },
    },
  },
};

const clusterStatusV1beta1: Properties = {
  ready: bool,
  rdeVersionInUse: str,
  vappMetadataUpdated: bool,
  conditions: capiV1beta1Conditions,
  site: str,
  org: str,
  ovdc: str,
  ovdcNetwork: str,
  infraId: str,
  parentUid: str,
  useAsManagementCluster: bool,
  proxyConfig: proxy,
  loadBalancerConfig: { type: 'object', properties: { useOneArm: bool, vipSubnet: str } },
};

const machineSpecV1beta1Keys = [
  'providerID',
  'catalog',
  'template',
  'sizingPolicy',
  'placementPolicy',
  'storageProfile',
  'diskSize',
  'bootstrapped',
  'enableNvidiaGPU',
];
const diskSize = propertiesOf(machineSpecSchema).diskSize as Schema;
const machineStatusV1beta1: Properties = {
  providerID: str,
  ready: bool,
  addresses: propertiesOf(machineStatusSchema).addresses as Schema,
  template: str,
  sizingPolicy: str,
  placementPolicy: str,
  nvidiaGpuEnabled: bool,
  diskSize,
  conditions: capiV1beta1Conditions,
};

/** The rules over CAPVCD's fields (providerID's), not over our own hardware fields. */
const machineRules = (machineSpecSchema['x-kubernetes-validations'] as Array<{ rule: string }>).filter((r) =>
  r.rule.includes('providerID'),
);
const machineSpec = (keys: string[]): Schema => ({
  ...pick(machineSpecSchema, keys),
  'x-kubernetes-validations': machineRules,
});
const machineTemplateSpec = (keys: string[]): Schema => {
  const template = propertiesOf(machineTemplateSpecSchema).template as Schema;
  return pick(machineTemplateSpecSchema, [], {
    template: pick(template, ['metadata'], { spec: machineSpec(keys) }),
  });
};

/** A served older version of one kind: its spec and status schemas. */
export interface OlderVersion {
  spec: Schema;
  status?: Schema;
}

const object = (properties: Properties): Schema => ({ type: 'object', properties });
const v1beta2MachineKeys = [...machineSpecV1beta1Keys, 'extraOvdcNetworks', 'vmNamingTemplate'];

/** CAPVCD's older versions of each kind, by kind and version. */
export const capvcdVersions: Record<string, Record<string, OlderVersion>> = {
  VCDCluster: {
    v1beta2: {
      spec: clusterSpec,
      status: object({ ...clusterStatusV1beta1, vcdResourceMap: resourceMap }),
    },
    v1beta1: { spec: clusterSpec, status: object(clusterStatusV1beta1) },
  },
  VCDMachine: {
    v1beta2: { spec: machineSpec(v1beta2MachineKeys), status: object(machineStatusV1beta1) },
    v1beta1: { spec: machineSpec(machineSpecV1beta1Keys), status: object(machineStatusV1beta1) },
  },
  VCDMachineTemplate: {
    v1beta2: { spec: machineTemplateSpec(v1beta2MachineKeys), status: machineTemplateStatusSchema },
    v1beta1: { spec: machineTemplateSpec(machineSpecV1beta1Keys), status: machineTemplateStatusSchema },
  },
  VCDClusterTemplate: {
    v1beta2: {
      spec: {
        ...object({ template: { type: 'object', required: ['spec'], properties: { spec: clusterSpec } } }),
        required: ['template'],
      },
    },
  },
};
