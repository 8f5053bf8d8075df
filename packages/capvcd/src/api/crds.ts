/**
 * The five CustomResourceDefinitions, built from the schemas in `schema.ts`. `deploy/crds.yaml` is
 * their YAML (written by `npm run crds -w @capstan/capvcd`; a test keeps it in step).
 */
import { CONTRACT_LABEL, GROUP, VERSION, WEBHOOK } from './keys.js';
import {
  clusterSpecSchema,
  clusterStatusSchema,
  clusterTemplateSpecSchema,
  identitySpecSchema,
  machineSpecSchema,
  machineStatusSchema,
  machineTemplateSpecSchema,
} from './schema.js';
import { capvcdVersions, type OlderVersion } from './schema-capvcd.js';
import { machineTemplateStatusSchema } from './schema-template.js';

type Schema = Record<string, unknown>;

interface Kind {
  kind: string;
  plural: string;
  spec: Schema;
  status?: Schema;
  columns?: Array<{ name: string; type: string; jsonPath: string }>;
  description: string;
  /** Cluster-scoped (default: namespaced). */
  clusterScoped?: boolean;
}

const ready = { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' };
const reason = { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' };

const kinds: Kind[] = [
  {
    kind: 'VCDCluster',
    plural: 'vcdclusters',
    spec: clusterSpecSchema,
    status: clusterStatusSchema,
    description:
      'The VCD side of a Cluster: site, org, VDC, network, credentials and the control-plane endpoint.',
    columns: [
      { name: 'Cluster', type: 'string', jsonPath: '.metadata.labels.cluster\\.x-k8s\\.io/cluster-name' },
      { name: 'Host', type: 'string', jsonPath: '.spec.controlPlaneEndpoint.host' },
      ready,
      reason,
    ],
  },
  {
    kind: 'VCDMachine',
    plural: 'vcdmachines',
    spec: machineSpecSchema,
    status: machineStatusSchema,
    description: 'One VM in VCD for one Cluster API Machine, made from a catalog template.',
    columns: [
      { name: 'Cluster', type: 'string', jsonPath: '.metadata.labels.cluster\\.x-k8s\\.io/cluster-name' },
      { name: 'VM', type: 'string', jsonPath: '.status.vmName' },
      { name: 'ProviderID', type: 'string', jsonPath: '.spec.providerID' },
      ready,
      reason,
    ],
  },
  {
    kind: 'VCDMachineTemplate',
    plural: 'vcdmachinetemplates',
    spec: machineTemplateSpecSchema,
    status: machineTemplateStatusSchema,
    description: 'The VCDMachine spec a MachineDeployment or control plane clones.',
  },
  {
    kind: 'VCDClusterTemplate',
    plural: 'vcdclustertemplates',
    spec: clusterTemplateSpecSchema,
    description: 'The VCDCluster spec a ClusterClass clones.',
  },
  {
    kind: 'VCDClusterIdentity',
    plural: 'vcdclusteridentities',
    spec: identitySpecSchema,
    clusterScoped: true,
    description:
      'A credentials Secret that VCDClusters in the namespaces it selects may name from outside its namespace.',
    columns: [
      { name: 'Namespace', type: 'string', jsonPath: '.spec.secretRef.namespace' },
      { name: 'Secret', type: 'string', jsonPath: '.spec.secretRef.name' },
    ],
  },
];

/** One served version's entry: its schema, status subresource and columns. */
function versionOf(k: Kind, name: string, v: OlderVersion, storage: boolean): Record<string, unknown> {
  const properties: Schema = {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: v.spec,
  };
  if (v.status) properties.status = v.status;
  return {
    name,
    served: true,
    storage,
    ...(name === 'v1beta1'
      ? { deprecated: true, deprecationWarning: `${GROUP}/v1beta1 ${k.kind} is deprecated; use ${VERSION}` }
      : {}),
    ...(v.status ? { subresources: { status: {} } } : {}),
    ...(k.columns ? { additionalPrinterColumns: k.columns } : {}),
    schema: {
      openAPIV3Schema: { type: 'object', description: k.description, required: ['spec'], properties },
    },
  };
}

/**
 * CAPVCD's older versions convert through our webhook (`/convert` on the provider's Service),
 * whose CA cert-manager injects (the CA's name is the Certificate's, in `webhook.yaml`).
 */
const conversion = {
  strategy: 'Webhook',
  webhook: {
    conversionReviewVersions: ['v1'],
    clientConfig: {
      service: { namespace: WEBHOOK.namespace, name: WEBHOOK.service, path: '/convert', port: 443 },
    },
  },
};

/** The CRD of one kind. */
function crdOf(k: Kind): Record<string, unknown> {
  const older = Object.entries(capvcdVersions[k.kind] ?? {});
  const hub: OlderVersion = { spec: k.spec, ...(k.status ? { status: k.status } : {}) };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${k.plural}.${GROUP}`,
      labels: {
        [CONTRACT_LABEL]: VERSION,
        'clusterctl.cluster.x-k8s.io': '',
        'cluster.x-k8s.io/provider': 'infrastructure-vcd',
      },
      ...(older.length > 0
        ? { annotations: { 'cert-manager.io/inject-ca-from': `${WEBHOOK.namespace}/${WEBHOOK.certificate}` } }
        : {}),
    },
    spec: {
      group: GROUP,
      scope: k.clusterScoped ? 'Cluster' : 'Namespaced',
      names: {
        kind: k.kind,
        listKind: `${k.kind}List`,
        plural: k.plural,
        singular: k.kind.toLowerCase(),
        categories: ['cluster-api'],
      },
      ...(older.length > 0 ? { conversion } : {}),
      versions: [...older.map(([name, v]) => versionOf(k, name, v, false)), versionOf(k, VERSION, hub, true)],
    },
  };
}

/** Every CRD this provider serves. */
export const customResourceDefinitions = (): Record<string, unknown>[] => kinds.map(crdOf);
