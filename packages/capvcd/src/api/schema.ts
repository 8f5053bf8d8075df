/**
 * OpenAPI schemas of our kinds, written once and shared by the CRDs: the schema refuses what a
 * schema can say (required fields, formats, immutable names, no inline credentials); the
 * reconcilers report the rest as conditions.
 */

import { affinityRulesStatusSchema, antiAffinitySchema } from './schema-affinity.js';
import { hardwareProperties, hardwareStatusProperties, hardwareValidations } from './schema-hardware.js';
import { networkInterfacesSchema } from './schema-nics.js';

type Schema = Record<string, unknown>;

const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const name = (description: string): Schema => str(description, { minLength: 1, maxLength: 253 });
/**
 * A name where `""` means none, as CAPVCD reads it; null too, which an unset clusterctl variable
 * left unquoted in CAPVCD's templates (`placementPolicy: ${VCD_..._POLICY}`) becomes.
 */
const optionalName = (description: string): Schema =>
  str(`${description} ("", null or absent: none)`, { maxLength: 253, nullable: true });
const nullableString: Schema = { type: 'string', nullable: true };

/** `metav1.Condition`, as CAPI reads it. */
export const conditionsSchema: Schema = {
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
    properties: {
      type: { type: 'string', maxLength: 316 },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      reason: { type: 'string', maxLength: 1024 },
      message: { type: 'string', maxLength: 32768 },
      lastTransitionTime: { type: 'string', format: 'date-time' },
      observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    },
  },
};

const endpointSchema: Schema = {
  type: 'object',
  description:
    'The workload API server. A host given is the load balancer’s VIP (as CAPVCD), or your own endpoint with loadBalancerConfigSpec.disabled.',
  properties: {
    host: str('IP address or DNS name', { maxLength: 512 }),
    port: { type: 'integer', format: 'int32', minimum: 1, maximum: 65535 },
  },
};

const taskSchema: Schema = {
  type: 'object',
  description: 'The VCD task in flight; the next reconcile reads it.',
  required: ['href', 'operation', 'startedAt'],
  properties: {
    href: str('Task URL'),
    operation: str('What the task does'),
    startedAt: { type: 'string', format: 'date-time' },
  },
};

const initializationSchema: Schema = {
  type: 'object',
  properties: { provisioned: { type: 'boolean' } },
};

/** CEL: the load balancer is switched off in `o` (a spec). */
const LB_DISABLED = (o: string) =>
  `has(${o}.loadBalancerConfigSpec) && has(${o}.loadBalancerConfigSpec.disabled) && ${o}.loadBalancerConfigSpec.disabled`;

/** VCDCluster.spec (also VCDClusterTemplate.spec.template.spec). */
export const clusterSpecSchema: Schema = {
  type: 'object',
  required: ['site', 'org', 'ovdc', 'ovdcNetwork', 'userContext'],
  properties: {
    controlPlaneEndpoint: endpointSchema,
    site: str('VCD URL', { pattern: '^https?://[^\\s/]+(/.*)?$', maxLength: 2048 }),
    org: name('Organization'),
    // "" with multiZoneSpec.zones, as CAPVCD's multi-zone clusters have them (the zones name the VDCs).
    ovdc: str('Organization VDC (empty: the zones of multiZoneSpec name them)', { maxLength: 253 }),
    ovdcNetwork: str('Organization VDC network the VMs attach to (empty: the zones name them)', {
      maxLength: 253,
    }),
    userContext: {
      type: 'object',
      description:
        'Credentials: a Secret with username and password, or refreshToken. Inline values are refused.',
      required: ['secretRef'],
      properties: {
        secretRef: {
          type: 'object',
          required: ['name'],
          properties: {
            name: name('Secret name'),
            namespace: optionalName('Secret namespace (default: the VCDCluster’s)'),
          },
        },
        username: str('Refused: put it in the Secret'),
        password: str('Refused: put it in the Secret'),
        refreshToken: str('Refused: put it in the Secret'),
      },
      'x-kubernetes-validations': [
        {
          rule: '!has(self.username) && !has(self.password) && !has(self.refreshToken)',
          message: 'credentials must come from userContext.secretRef, never inline',
        },
      ],
    },
    loadBalancerConfigSpec: {
      type: 'object',
      properties: {
        useOneArm: {
          type: 'boolean',
          'x-kubernetes-validations': [
            { rule: '!self', message: 'one-arm load balancers are not supported' },
          ],
        },
        vipSubnet: str('CIDR the VIP is taken from ("" or null: any)', {
          pattern: '^([0-9.]+/[0-9]{1,2})?$',
          nullable: true,
        }),
        disabled: {
          type: 'boolean',
          description:
            'true: make no load balancer; you run the endpoint controlPlaneEndpoint names (required then). Absent or false: a load balancer is made, its VIP controlPlaneEndpoint.host if given (as CAPVCD), else a free address of the edge gateway.',
        },
      },
    },
    multiZoneSpec: {
      type: 'object',
      properties: {
        zones: {
          type: 'array',
          maxItems: 100,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name', 'ovdc', 'ovdcNetworkName'],
            properties: {
              name: name('Failure domain name'),
              ovdc: name('VDC of the zone'),
              ovdcNetworkName: name('Network of the zone'),
              controlPlaneZone: { type: 'boolean' },
            },
          },
        },
        zoneTopology: {
          type: 'string',
          enum: ['', 'DCGroup'],
          description: 'CAPVCD: DCGroup topology (reported, not acted on)',
        },
        dcGroupConfig: { type: 'object', description: 'CAPVCD: DC group settings (reported, not acted on)' },
      },
    },
    insecureSkipTLSVerify: {
      type: 'boolean',
      description: 'Do not verify the site certificate (warned by a condition).',
    },
    antiAffinity: antiAffinitySchema,
    // CAPVCD's fields, accepted so that its manifests apply; SpecHonoured=False names those set.
    rdeId: str('CAPVCD: the RDE of the cluster (no RDE is kept here; reported, not acted on)', {
      nullable: true,
    }),
    parentUid: str('CAPVCD: the management cluster’s RDE (reported, not acted on)', { nullable: true }),
    useAsManagementCluster: { type: 'boolean', description: 'CAPVCD: reported, not acted on' },
    proxyConfigSpec: {
      type: 'object',
      description: 'CAPVCD: proxy for the nodes (reported, not acted on: set it in KubeadmConfig files)',
      properties: {
        httpProxy: nullableString,
        httpsProxy: nullableString,
        noProxy: nullableString,
      },
    },
    ovcdZoneConfigMap: str('CAPVCD: zone ConfigMap (reported, not acted on)'),
  },
  'x-kubernetes-validations': [
    {
      rule: '(self.ovdc != "" && self.ovdcNetwork != "") || (has(self.multiZoneSpec) && has(self.multiZoneSpec.zones) && size(self.multiZoneSpec.zones) > 0)',
      message: 'ovdc and ovdcNetwork are needed unless multiZoneSpec.zones name the VDCs',
    },
    {
      rule: '!has(oldSelf.controlPlaneEndpoint) || !has(oldSelf.controlPlaneEndpoint.host) || oldSelf.controlPlaneEndpoint.host == "" || (has(self.controlPlaneEndpoint) && self.controlPlaneEndpoint == oldSelf.controlPlaneEndpoint)',
      message: 'controlPlaneEndpoint is immutable once set',
    },
    { rule: 'self.site == oldSelf.site && self.org == oldSelf.org', message: 'site and org are immutable' },
    {
      rule: `!(${LB_DISABLED('self')}) || (has(self.controlPlaneEndpoint) && has(self.controlPlaneEndpoint.host) && self.controlPlaneEndpoint.host != "")`,
      message: 'loadBalancerConfigSpec.disabled needs controlPlaneEndpoint.host: the endpoint you run',
    },
    {
      rule: `(${LB_DISABLED('self')}) == (${LB_DISABLED('oldSelf')})`,
      message:
        'loadBalancerConfigSpec.disabled is immutable: a load balancer is made or not for the cluster’s life',
    },
  ],
};

export const clusterStatusSchema: Schema = {
  type: 'object',
  properties: {
    initialization: initializationSchema,
    ready: { type: 'boolean' },
    conditions: conditionsSchema,
    failureDomains: {
      type: 'array',
      maxItems: 100,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: name('Failure domain'),
          controlPlane: { type: 'boolean' },
          attributes: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
    task: taskSchema,
    loadBalancer: {
      type: 'object',
      properties: {
        vip: { type: 'string' },
        poolId: { type: 'string' },
        virtualServiceId: { type: 'string' },
        members: { type: 'array', items: { type: 'string' } },
      },
    },
    affinityRules: affinityRulesStatusSchema,
    observedGeneration: { type: 'integer', format: 'int64' },
    // What the VCD cloud provider (CPI) and CSI driver are configured with (CAPVCD's names).
    site: str('VCD site URL'),
    org: str('VCD organization'),
    ovdc: str('Org VDC'),
    ovdcNetwork: str('Org VDC network'),
    vappName: str('The vApp holding the cluster’s VMs'),
    infraId: str('The cluster id for the CPI and CSI (NO_RDE_: no runtime defined entity)'),
  },
};

/** VCDMachine.spec (also VCDMachineTemplate.spec.template.spec). */
export const machineSpecSchema: Schema = {
  type: 'object',
  required: ['catalog', 'template'],
  properties: {
    providerID: str('vmware-cloud-director://urn:vcloud:vm:<uuid>', {
      pattern: '^vmware-cloud-director://urn:vcloud:vm:[0-9a-fA-F-]{36}$',
    }),
    catalog: name('Catalog holding the template'),
    template: name('vApp template the VM is made from'),
    sizingPolicy: optionalName('VM sizing policy'),
    placementPolicy: optionalName('VM placement policy'),
    storageProfile: optionalName('Storage profile'),
    diskSize: {
      'x-kubernetes-int-or-string': true,
      description: 'Size of the first disk (a quantity, e.g. 20Gi); grown only',
      pattern: '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$',
    },
    extraOvdcNetworks: { type: 'array', maxItems: 9, items: name('Extra network') },
    networkInterfaces: networkInterfacesSchema,
    vmNamingTemplate: str(
      'VM name: literal text and {{ .machine.name }}, {{ .vcdMachine.name }}, {{ .cluster.name }}',
      {
        maxLength: 256,
        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'vmNamingTemplate is immutable' }],
      },
    ),
    failureDomain: optionalName('Failure domain (a zone of the VCDCluster)'),
    enableGuestCustomization: {
      type: 'boolean',
      description: 'VCD guest customization (off: cloud-init does it)',
    },
    bootstrapped: {
      type: 'boolean',
      description: 'CAPVCD: written by its controller (reported, not acted on)',
    },
    enableNvidiaGPU: { type: 'boolean', description: 'CAPVCD: a no-op there too (reported, not acted on)' },
    ...hardwareProperties,
  },
  'x-kubernetes-validations': [
    {
      rule: '!has(oldSelf.providerID) || (has(self.providerID) && self.providerID == oldSelf.providerID)',
      message: 'providerID is immutable once set',
    },
    ...hardwareValidations,
  ],
};

export const machineStatusSchema: Schema = {
  type: 'object',
  properties: {
    initialization: initializationSchema,
    ready: { type: 'boolean' },
    addresses: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'address'],
        properties: {
          type: {
            type: 'string',
            enum: ['Hostname', 'ExternalIP', 'InternalIP', 'ExternalDNS', 'InternalDNS'],
          },
          address: { type: 'string', minLength: 1, maxLength: 256 },
        },
      },
    },
    conditions: conditionsSchema,
    failureDomain: { type: 'string' },
    vmName: { type: 'string' },
    task: taskSchema,
    observedGeneration: { type: 'integer', format: 'int64' },
    ...hardwareStatusProperties,
  },
};

const templateMetadata: Schema = {
  type: 'object',
  properties: {
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

export const machineTemplateSpecSchema: Schema = {
  type: 'object',
  required: ['template'],
  properties: {
    template: {
      type: 'object',
      required: ['spec'],
      properties: { metadata: templateMetadata, spec: machineSpecSchema },
    },
  },
};

export const clusterTemplateSpecSchema: Schema = {
  type: 'object',
  required: ['template'],
  properties: { template: { type: 'object', required: ['spec'], properties: { spec: clusterSpecSchema } } },
};

/** A Kubernetes label selector (`matchLabels` and `matchExpressions`, ANDed). */
const labelSelectorSchema: Schema = {
  type: 'object',
  properties: {
    matchLabels: { type: 'object', additionalProperties: { type: 'string' } },
    matchExpressions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'operator'],
        properties: {
          key: { type: 'string' },
          operator: { type: 'string', enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
          values: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
};

/**
 * VCDClusterIdentity.spec: a credentials Secret that VCDClusters of other namespaces may name, and
 * which namespaces may (as CAPV's VSphereClusterIdentity). Cluster-scoped, so only a cluster
 * administrator grants it.
 */
export const identitySpecSchema: Schema = {
  type: 'object',
  required: ['secretRef'],
  properties: {
    secretRef: {
      type: 'object',
      description: 'The Secret shared (keys as for userContext.secretRef)',
      required: ['name', 'namespace'],
      properties: { name: name('Secret name'), namespace: name('Secret namespace') },
    },
    allowedNamespaces: {
      type: 'object',
      description: 'Namespaces whose VCDClusters may use the Secret; absent: none',
      properties: {
        selector: {
          ...labelSelectorSchema,
          description: 'Namespaces by label; {} selects every namespace, absent none',
        },
      },
    },
  },
};
