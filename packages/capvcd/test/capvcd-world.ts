/**
 * The world around capvcd in its conformance scenario: vcdsim served in-process on the run's
 * virtual clock (one per run, made by the scenario's world set-up), the objects a Cluster API
 * user writes, and Cluster API's own part (the Cluster's infrastructure marked provisioned once
 * its VCDCluster is), played between the harness's ticks.
 */
import { fileURLToPath } from 'node:url';
import {
  type Cluster,
  ClusterType,
  type Machine,
  MachineType,
  type VCDCluster,
  VCDClusterType,
  type VCDMachine,
  VCDMachineType,
  type VcdTransport,
} from '@capstan/capvcd';
import type { KubeObject } from '@capstan/runtime';
import { Secret } from '@capstan/runtime/client';
import type { ConformanceUser } from '@capstan/runtime/testing';
import { startVcdSim, type VcdSim } from '@capstan/vcdsim';

export const NAMESPACE = 'default';
export const CLUSTER = 'c1';
const INFRA = 'infrastructure.cluster.x-k8s.io';
const CAPI = 'cluster.x-k8s.io/v1beta2';
const seed = fileURLToPath(new URL('./fixtures/seed.yaml', import.meta.url));
const b64 = (text: string) => Buffer.from(text).toString('base64');

let current: VcdSim | undefined;

/** This run's simulator. */
export function sim(): VcdSim {
  if (!current) throw new Error('the world was not set up');
  return current;
}

/** Starts this run's simulator on the run's clock, serving in-process. */
export async function startSim(user: ConformanceUser): Promise<void> {
  current = await startVcdSim({
    seed,
    clock: user.clock,
    listen: false,
    taskLatencyMs: 200,
    bootDelayMs: 300,
  });
}

/** The provider's VCD requests, served by this run's simulator (header names in lower case, as HTTP gives them). */
export const inProcess: VcdTransport = async (url, request) => {
  const answer = await sim().serve({ ...request, url: `${url.pathname}${url.search}` });
  const headers = Object.fromEntries(Object.entries(answer.headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { status: answer.status, headers, body: answer.body };
};

const ownerRef = (kind: string, o: KubeObject) => ({
  apiVersion: CAPI,
  kind,
  name: o.metadata.name as string,
  uid: o.metadata.uid as string,
  controller: true,
  blockOwnerDeletion: true,
});

/** The Cluster, its VCDCluster (adopted, as CAPI adopts it) and the credentials Secret. */
export async function createCluster({ client }: ConformanceUser): Promise<void> {
  await client.create(Secret, {
    metadata: { name: `${CLUSTER}-vcd`, namespace: NAMESPACE },
    data: { username: b64('alice'), password: b64('alice-password') },
  });
  const cluster = await client.create(ClusterType, {
    apiVersion: CAPI,
    kind: 'Cluster',
    metadata: { name: CLUSTER, namespace: NAMESPACE },
    spec: { infrastructureRef: { apiGroup: INFRA, kind: 'VCDCluster', name: CLUSTER } },
  } as Cluster);
  await client.create(VCDClusterType, {
    apiVersion: `${INFRA}/v1beta3`,
    kind: 'VCDCluster',
    metadata: {
      name: CLUSTER,
      namespace: NAMESPACE,
      labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER },
      ownerReferences: [ownerRef('Cluster', cluster)],
    },
    spec: {
      site: sim().url,
      org: 'tenant-a',
      ovdc: 'vdc-a',
      ovdcNetwork: 'net-a',
      userContext: { secretRef: { name: `${CLUSTER}-vcd` } },
    },
  } as VCDCluster);
}

/** A Machine with its bootstrap data and its VCDMachine (adopted, as CAPI adopts it). */
export async function createMachine(
  { client, cluster }: ConformanceUser,
  name: string,
  controlPlane: boolean,
) {
  const owner = cluster.getObject(ClusterType, { namespace: NAMESPACE, name: CLUSTER });
  if (!owner) throw new Error(`Cluster ${CLUSTER} does not exist`);
  const labels = {
    'cluster.x-k8s.io/cluster-name': CLUSTER,
    ...(controlPlane ? { 'cluster.x-k8s.io/control-plane': '' } : {}),
  };
  await client.create(Secret, {
    metadata: {
      name: `${name}-bootstrap`,
      namespace: NAMESPACE,
      ownerReferences: [ownerRef('Cluster', owner)],
    },
    data: { value: b64('#cloud-config\n'), format: b64('cloud-config') },
  });
  const machine = await client.create(MachineType, {
    apiVersion: CAPI,
    kind: 'Machine',
    metadata: { name, namespace: NAMESPACE, labels, ownerReferences: [ownerRef('Cluster', owner)] },
    spec: {
      clusterName: CLUSTER,
      version: 'v1.35.0',
      bootstrap: { dataSecretName: `${name}-bootstrap` },
      infrastructureRef: { apiGroup: INFRA, kind: 'VCDMachine', name },
    },
  } as Machine);
  await client.create(VCDMachineType, {
    apiVersion: `${INFRA}/v1beta3`,
    kind: 'VCDMachine',
    metadata: { name, namespace: NAMESPACE, labels, ownerReferences: [ownerRef('Machine', machine)] },
    spec: { catalog: 'templates', template: 'ubuntu-2404-kube-v1.35' },
  } as VCDMachine);
}

/** Cluster API's part: the Cluster's infrastructure is provisioned once its VCDCluster is. */
export async function capiStep({ client, cluster }: ConformanceUser): Promise<void> {
  const key = { namespace: NAMESPACE, name: CLUSTER };
  const owner = cluster.getObject(ClusterType, key);
  const infra = cluster.getObject(VCDClusterType, key);
  if (!owner || owner.metadata.deletionTimestamp) return;
  const provisioned = infra?.status?.initialization?.provisioned === true;
  if ((owner.status?.initialization?.infrastructureProvisioned === true) === provisioned) return;
  await client.patch(
    ClusterType,
    key,
    'merge',
    { status: { initialization: { infrastructureProvisioned: provisioned } } },
    { subresource: 'status' },
  );
}
