/**
 * Shared pieces of the agent's envtest tests: applying deploy/ under a test namespace, an identity
 * bound by that RBAC, plain Node objects with a boot ID (for tests without kwok), workloads pinned
 * to a pool of kwok nodes, and a reboot-needed source a test sets by hand.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { readManifests } from '@capstan/envtest';
import type { SharedControlPlane } from '@capstan/envtest/vitest';
import { Client, defineResource, type KubeObject } from '@capstan/runtime';
import {
  type DaemonSet,
  Deployment,
  Event,
  HttpTransport,
  Node,
  Pod,
  PodDisruptionBudget,
} from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import type { RebootNeededSource, SourceStatus } from '../src/sources/source.js';

export const DEPLOY_NAMESPACE = 'capstan-system';

const CLUSTER_SCOPED = [
  'ClusterRole',
  'ClusterRoleBinding',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
];

/**
 * Reads a deploy/ manifest, moved into `namespace` (also the service account in policies' user
 * names); cluster-scoped and `default` names get a suffix, and so do the names that refer to them.
 */
export function loadManifest(file: string, namespace: string): KubeObject[] {
  const path = fileURLToPath(new URL(`../deploy/${file}`, import.meta.url));
  const rename = (name: string) => `${name}-${namespace}`;
  return readManifests(path).map((o) => {
    const text = JSON.stringify(o)
      .replaceAll(`"namespace":"${DEPLOY_NAMESPACE}"`, `"namespace":"${namespace}"`)
      .replaceAll(`system:serviceaccount:${DEPLOY_NAMESPACE}:`, `system:serviceaccount:${namespace}:`);
    const obj = JSON.parse(text) as KubeObject & {
      roleRef?: { kind: string; name: string };
      spec?: { policyName?: string };
    };
    if (CLUSTER_SCOPED.includes(obj.kind ?? '') || obj.metadata.namespace === 'default')
      obj.metadata.name = rename(obj.metadata.name ?? '');
    if (obj.roleRef) obj.roleRef.name = rename(obj.roleRef.name);
    if (obj.spec?.policyName) obj.spec.policyName = rename(obj.spec.policyName);
    return obj;
  });
}

const policyTypes = {
  ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
} as const;

/** Deletes the admission policies and bindings among `objects` (read with {@link loadManifest}). */
export async function removePolicies(client: Client, objects: KubeObject[]): Promise<void> {
  for (const o of objects) {
    const plural = policyTypes[o.kind as keyof typeof policyTypes];
    if (!plural) continue;
    const type = defineResource({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      kind: o.kind as string,
      plural,
      namespaced: false,
    });
    await client.deleteIfExists(type, { name: o.metadata.name ?? '' });
  }
}

/**
 * Applies deploy/rbac.yaml into the test namespace and returns a KubeConfig for the agent's
 * service account, once the API server authorizes it.
 */
export async function agentIdentity(env: SharedControlPlane) {
  await env.plane.createObjects(loadManifest('rbac.yaml', env.namespace), { ignoreExisting: true });
  const kubeConfig = await env.plane.serviceAccountKubeConfig(env.namespace, 'capstan-agent');
  const client = new Client(new HttpTransport(kubeConfig));
  await eventually(
    async () => {
      await client.list(Node, { limit: 1 });
      await client.list(Pod, { limit: 1 });
      await client.create(
        Event,
        {
          metadata: { generateName: 'probe-', namespace: 'default' },
          eventTime: new Date().toISOString().replace('Z', '000Z'),
          reportingController: 'test',
          reportingInstance: 'test',
          action: 'Probe',
          reason: 'Probe',
          type: 'Normal',
          regarding: { kind: 'Node', name: 'probe', apiVersion: 'v1' },
        } as unknown as Event,
        { dryRun: true },
      );
      return true;
    },
    { what: 'the agent RBAC to take effect', timeoutMs: 20_000 },
  );
  return kubeConfig;
}

/** A name unique on the shared cluster (nodes are cluster-scoped). */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/**
 * Creates a pod of the agent's service account bound to `node` (as the scheduler leaves it), e.g.
 * to mint a token bound to it; `owner` makes it that DaemonSet's pod, which the drain leaves alone.
 */
export function createPodOn(
  client: Client,
  namespace: string,
  name: string,
  node: string,
  owner?: DaemonSet,
): Promise<Pod> {
  const controller = owner && {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
  };
  return client.create(Pod, {
    metadata: { name, namespace, ...(controller ? { ownerReferences: [controller] } : {}) },
    spec: {
      nodeName: node,
      serviceAccountName: 'capstan-agent',
      containers: [{ name: 'main', image: 'example/app' }],
    },
  } as Pod);
}

/** Creates a Node and sets its boot ID through the status subresource. */
export async function createNode(
  client: Client,
  name: string,
  options: { bootID: string; unschedulable?: boolean; annotations?: Record<string, string> },
): Promise<Node> {
  await client.create(Node, {
    metadata: { name, annotations: options.annotations ?? {} },
    spec: options.unschedulable ? { unschedulable: true } : {},
  });
  return setBootID(client, name, options.bootID);
}

/** Sets `status.nodeInfo.bootID`, as a kubelet does after a boot. */
export function setBootID(client: Client, name: string, bootID: string): Promise<Node> {
  return client.patchStatus(Node, { name }, 'merge', {
    status: {
      nodeInfo: { bootID, machineID: name, systemUUID: name, kubeletVersion: 'v1.31.0' },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'test',
          lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        },
      ],
    },
  });
}

/** Merge-patches the node's annotations (null removes), as the coordinator would. */
export function annotate(client: Client, name: string, annotations: Record<string, string | null>) {
  return client.patch(Node, { name }, 'merge', { metadata: { annotations } });
}

/**
 * A Deployment of `replicas` pods pinned to the kwok nodes labelled `pool=<pool>`, with a
 * PodDisruptionBudget of `minAvailable`: kube-scheduler places the pods, kwok runs them.
 */
export async function pooledDeployment(
  admin: Client,
  namespace: string,
  options: { name: string; pool: string; replicas: number; minAvailable: number },
): Promise<void> {
  const { name, pool, replicas, minAvailable } = options;
  await admin.create(Deployment, {
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          nodeSelector: { pool },
          containers: [{ name: 'c', image: 'registry.invalid/app:1' }],
          terminationGracePeriodSeconds: 30,
        },
      },
    },
  });
  await admin.create(PodDisruptionBudget, {
    metadata: { name, namespace },
    spec: { minAvailable, selector: { matchLabels: { app: name } } },
  });
}

/** Whether a pod runs: phase Running and Ready, as the kubelet (kwok) reports it. */
export const isRunning = (pod: Pod): boolean =>
  pod.status?.phase === 'Running' &&
  !!pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/**
 * Waits until `count` pods of `app` run on `node` and its PDB counts them healthy, allowing
 * `allowed` disruptions. Answers the pods.
 */
export async function runningPods(
  admin: Client,
  namespace: string,
  options: { app: string; node: string; count: number; allowed: number },
): Promise<Pod[]> {
  const { app, node, count, allowed } = options;
  const pods = await eventually(
    async () => {
      const { items } = await admin.list(Pod, { namespace, labelSelector: `app=${app}` });
      const running = items.filter((p) => p.spec?.nodeName === node && isRunning(p));
      return running.length === count && items.length === count ? running : undefined;
    },
    { what: `${count} pods of ${app} running on ${node}`, timeoutMs: 30_000 },
  );
  await eventually(
    async () => {
      const pdb = await admin.get(PodDisruptionBudget, { namespace, name: app });
      return pdb.status?.currentHealthy === count && pdb.status.disruptionsAllowed === allowed;
    },
    { what: `PDB ${app} to allow ${allowed}`, timeoutMs: 30_000 },
  );
  return pods;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The events recorded about a node (they live in `default`). */
export async function nodeEvents(client: Client, nodeName: string): Promise<Event[]> {
  const { items } = await client.list(Event, { namespace: 'default' });
  return items.filter((e) => (e as { regarding?: { name?: string } }).regarding?.name === nodeName);
}

/** A reboot-needed source the test sets by hand. */
export class ManualSource implements RebootNeededSource {
  private listener: ((status: SourceStatus) => void) | undefined;
  constructor(private status: SourceStatus = { rebootNeeded: false }) {}
  async start(onChange: (status: SourceStatus) => void): Promise<void> {
    this.listener = onChange;
    onChange(this.status);
  }
  async stop(): Promise<void> {
    this.listener = undefined;
  }
  set(status: SourceStatus): void {
    this.status = status;
    this.listener?.(status);
  }
}

/** The number of API requests the agent's manager saw answered 403. */
export async function forbiddenCount(metricsText: string): Promise<number> {
  let total = 0;
  for (const m of metricsText.matchAll(/^rest_client_requests_total\{[^}]*code="403"[^}]*\} (\d+)/gm)) {
    total += Number(m[1]);
  }
  return total;
}
