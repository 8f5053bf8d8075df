/**
 * Simulated Nodes: the Node object envtest creates for a {@link NodeSpec}, and how its readiness
 * reads. Pure, so the shape is property-tested apart from the API server.
 */
import { createHash, randomUUID } from 'node:crypto';
import { kwokManagedValue, kwokNodeAnnotation } from './kwok.js';
import type { ManifestObject } from './manifests.js';
import { kubernetesVersion } from './versions.js';

/** A taint, as in `spec.taints`. */
export interface NodeTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** A kwok-managed Node to create; every field but `name` has a default. */
export interface NodeSpec {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  taints?: NodeTaint[];
  unschedulable?: boolean;
  /** `spec.providerID`, e.g. `vcd://<vm-id>` (what Cluster API's Machine controller matches). */
  providerID?: string;
  /** `status.nodeInfo.machineID`; default: 32 hex digits derived from the name. */
  machineID?: string;
  /** `status.nodeInfo.bootID`; default: a random UUID. kwok does not set boot IDs: envtest does. */
  bootID?: string;
  /** `status.nodeInfo.osImage`; default `Capstan envtest (kwok)`. */
  osImage?: string;
  /** `status.nodeInfo.kubeletVersion`; default the control plane's Kubernetes version. */
  kubeletVersion?: string;
}

/** The Node object for `spec`, handed to kwok through its annotation. */
export function nodeObject(spec: NodeSpec, kubeletVersion = kubernetesVersion()): ManifestObject {
  const machineID = spec.machineID ?? createHash('sha256').update(spec.name).digest('hex').slice(0, 32);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: spec.name,
      labels: {
        'kubernetes.io/hostname': spec.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        type: 'kwok',
        ...spec.labels,
      },
      // The kwok annotation comes last: a spec cannot take the node away from kwok by accident.
      annotations: { ...spec.annotations, [kwokNodeAnnotation]: kwokManagedValue },
    },
    spec: {
      ...(spec.providerID ? { providerID: spec.providerID } : {}),
      ...(spec.taints?.length ? { taints: spec.taints } : {}),
      ...(spec.unschedulable ? { unschedulable: true } : {}),
    },
    status: {
      nodeInfo: {
        machineID,
        systemUUID: machineID,
        bootID: spec.bootID ?? randomUUID(),
        osImage: spec.osImage ?? 'Capstan envtest (kwok)',
        kubeletVersion: spec.kubeletVersion ?? kubeletVersion,
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/** `count` node specs named `<prefix>-0` ... `<prefix>-<count-1>`. */
export function nodeSpecs(count: number, prefix: string): NodeSpec[] {
  if (!Number.isInteger(count) || count < 0)
    throw new Error(`a node count must be a whole number, not ${count}`);
  return Array.from({ length: count }, (_, i) => ({ name: `${prefix}-${i}` }));
}

/** The part of a Node (or Pod) envtest reads. */
export interface ConditionsHolder {
  status?: { conditions?: Array<{ type: string; status: string }>; phase?: string };
}

/** The status of the `Ready` condition (`True`, `False`, `Unknown`), or undefined when there is none. */
export function readyStatus(object: ConditionsHolder): string | undefined {
  return object.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

/** The taints the node lifecycle controller sets on a node that is not Ready. */
export const notReadyTaints = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

/**
 * Whether a node is up for pods: Ready, and without the not-ready taints (which the node
 * lifecycle controller lifts a moment after Ready).
 */
export function nodeUp(node: ConditionsHolder & { spec?: { taints?: Array<{ key: string }> } }): boolean {
  return readyStatus(node) === 'True' && !node.spec?.taints?.some((t) => notReadyTaints.includes(t.key));
}

/** Whether a pod runs: phase Running and Ready. */
export const podRunning = (pod: ConditionsHolder): boolean =>
  pod.status?.phase === 'Running' && readyStatus(pod) === 'True';

/** A timestamp as Kubernetes writes them (RFC 3339, whole seconds). */
export const kubeTime = (date = new Date()): string => date.toISOString().replace(/\.\d+Z$/, 'Z');

/** A strategic-merge status patch setting the Ready condition. */
export function readyPatch(status: 'True' | 'False' | 'Unknown', reason: string, message: string) {
  const now = kubeTime();
  return {
    status: {
      conditions: [
        { type: 'Ready', status, reason, message, lastHeartbeatTime: now, lastTransitionTime: now },
      ],
    },
  };
}
