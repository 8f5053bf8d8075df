/**
 * The names this provider shares with Cluster API, the VCD cloud provider and its users: the API
 * group and version, finalizers, labels, annotations, condition types and reasons, the providerID.
 */

/** Our API group (Cluster API's infrastructure group) and the version we serve (CAPVCD's storage version). */
export const GROUP = 'infrastructure.cluster.x-k8s.io';
export const VERSION = 'v1beta3';

/** Where the API server calls the conversion webhook, and the cert-manager Certificate it trusts. */
export const WEBHOOK = {
  namespace: 'capvcd-system',
  service: 'capstan-capvcd-webhook',
  certificate: 'capstan-capvcd-serving-cert',
  secret: 'capstan-capvcd-webhook-cert',
} as const;
/** The annotation carrying, through a conversion, the fields the other version has no place for. */
export const CONVERSION_DATA_ANNOTATION = 'capvcd.capstan.dev/conversion-data';

/** Cluster API's own group and version (Cluster, Machine). */
export const CAPI_GROUP = 'cluster.x-k8s.io';
export const CAPI_VERSION = 'v1beta2';

/** The CRD label through which CAPI v1.14 resolves `infrastructureRef`s to our version. */
export const CONTRACT_LABEL = 'cluster.x-k8s.io/v1beta2';

export const CLUSTER_FINALIZER = 'vcdcluster.infrastructure.cluster.x-k8s.io';
export const MACHINE_FINALIZER = 'vcdmachine.infrastructure.cluster.x-k8s.io';
/**
 * On a credentials Secret while a VCDCluster that names it still has VCD objects: deleting the
 * namespace (or the Secret) must not take the credentials before the VMs and load balancer go.
 */
export const CREDENTIALS_FINALIZER = 'vcdcluster.infrastructure.cluster.x-k8s.io/credentials';
/** clusterctl moves objects with this label along with the cluster. */
export const MOVE_LABEL = 'clusterctl.cluster.x-k8s.io/move';

/** Set by CAPI on Machines and infrastructure machines. */
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
/** Present on control-plane Machines. */
export const CONTROL_PLANE_LABEL = 'cluster.x-k8s.io/control-plane';
/** Cluster API's Machine labels naming its KubeadmControlPlane, and its MachineDeployment. */
export const CONTROL_PLANE_NAME_LABEL = 'cluster.x-k8s.io/control-plane-name';
export const DEPLOYMENT_NAME_LABEL = 'cluster.x-k8s.io/deployment-name';
/** Externally managed infrastructure: we leave such objects alone. */
export const MANAGED_BY_LABEL = 'cluster.x-k8s.io/managed-by';
/** Pauses one object (the Cluster's `spec.paused` pauses all of its objects). */
export const PAUSED_ANNOTATION = 'cluster.x-k8s.io/paused';

/**
 * Written on a VCDCluster (with `spec.controlPlaneEndpoint`) when this provider recorded the
 * load balancer's VIP there; it tells an operator where the endpoint came from. Whether a load
 * balancer is made is `spec.loadBalancerConfigSpec.disabled`'s alone.
 */
export const MANAGED_ENDPOINT_ANNOTATION = 'capvcd.capstan.dev/managed-endpoint';

/**
 * Written on a VCDCluster whose VIP is a floating IP this provider reserved in an IP Space (the
 * address): that reservation is released when the cluster goes. It moves with the object
 * (`clusterctl move`); a VIP the user gave never carries it, so it is never released.
 */
export const RESERVED_VIP_ANNOTATION = 'capvcd.capstan.dev/reserved-vip';

/** What the VCD cloud provider reads from `Node.spec.providerID`. */
export const PROVIDER_ID_PREFIX = 'vmware-cloud-director://';

/** `vmware-cloud-director://urn:vcloud:vm:<uuid>` for a VM's URN. */
export const providerIdFor = (vmUrn: string): string => `${PROVIDER_ID_PREFIX}${vmUrn}`;

/** The VM's URN a providerID names (the inverse of {@link providerIdFor}), or undefined. */
export const vmUrnOfProviderId = (providerID: string | undefined): string | undefined =>
  /^vmware-cloud-director:\/\/(urn:vcloud:vm:[0-9a-fA-F-]{36})$/.exec(providerID ?? '')?.[1];

/** Condition types. */
export const Conditions = {
  Ready: 'Ready',
  VMProvisioned: 'VMProvisioned',
  LoadBalancerAvailable: 'LoadBalancerAvailable',
  Paused: 'Paused',
  /** False when TLS verification of the VCD site is switched off, or its last handshake failed. */
  TLSVerified: 'TLSVerified',
  /** False when the spec sets CAPVCD fields this provider accepts but does not act on (named). */
  SpecHonoured: 'SpecHonoured',
  /**
   * False while VCD denies a provisioned machine's VM and where it lived (lost rights, not a gone
   * VM); apart from Ready, so a MachineHealthCheck does not replace machines a credential cannot see.
   */
  VMReadable: 'VMReadable',
  /**
   * With `spec.antiAffinity` (or rules of ours left): True once VCD holds exactly the rules the
   * machines call for; False with the next write, or the VCD fault that stopped it.
   */
  AntiAffinityRulesReady: 'AntiAffinityRulesReady',
} as const;

/** Default API server port of a control-plane endpoint. */
export const DEFAULT_API_PORT = 6443;

/** `reportingController` of the provider's events. */
export const EVENT_SOURCE = 'infrastructure.cluster.x-k8s.io/capstan-capvcd';
