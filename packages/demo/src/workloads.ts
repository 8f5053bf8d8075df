/**
 * The workloads the demo's nodes run, so that drains have something to move: per reboot group a
 * Deployment pinned to the group's nodes with a PodDisruptionBudget, and a DaemonSet on every
 * node. kube-scheduler places the pods and kwok runs them; an evicted pod's replacement lands on
 * another node of its group.
 */
import type { Client } from '@capstan/runtime';
import { DaemonSet, Deployment, Namespace, Pod, PodDisruptionBudget } from '@capstan/runtime/client';

/** The namespace of the demo's workloads. */
export const WORKLOAD_NAMESPACE = 'demo-apps';

/** One group's Deployment: its name, the node selector of its group, replicas and PDB. */
export interface GroupWorkload {
  name: string;
  nodeSelector: { key: string; operator: 'Exists' | 'DoesNotExist' };
  replicas: number;
  maxUnavailable: number;
}

/** Creates the namespace, the groups' Deployments and PDBs, and the node DaemonSet. */
export async function createWorkloads(admin: Client, groups: GroupWorkload[]): Promise<void> {
  const namespace = WORKLOAD_NAMESPACE;
  await admin.create(Namespace, { metadata: { name: namespace } });
  for (const g of groups) {
    const labels = { app: g.name };
    await admin.create(Deployment, {
      metadata: { name: g.name, namespace },
      spec: {
        replicas: g.replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [{ matchExpressions: [g.nodeSelector] }],
                },
              },
            },
            // kubeadm taints control-plane nodes; a group's pods that belong there tolerate it.
            tolerations: [{ key: g.nodeSelector.key, operator: 'Exists', effect: 'NoSchedule' }],
            containers: [{ name: 'app', image: `registry.invalid/${g.name}:1` }],
            terminationGracePeriodSeconds: 5,
          },
        },
      },
    });
    await admin.create(PodDisruptionBudget, {
      metadata: { name: g.name, namespace },
      spec: { maxUnavailable: g.maxUnavailable, selector: { matchLabels: labels } },
    });
  }
  await admin.create(DaemonSet, {
    metadata: { name: 'node-exporter', namespace },
    spec: {
      selector: { matchLabels: { app: 'node-exporter' } },
      template: {
        metadata: { labels: { app: 'node-exporter' } },
        spec: {
          // On every node, control planes included (as node-exporter's charts run it).
          tolerations: [{ operator: 'Exists' }],
          containers: [{ name: 'exporter', image: 'registry.invalid/node-exporter:1' }],
        },
      },
    },
  });
}

/** Why the workloads are not all running (empty when every Deployment and the DaemonSet are). */
export async function workloadProblems(
  admin: Client,
  groups: GroupWorkload[],
  nodes: number,
): Promise<string[]> {
  const problems: string[] = [];
  for (const g of groups) {
    const d = await admin.get(Deployment, { namespace: WORKLOAD_NAMESPACE, name: g.name });
    const ready = d.status?.readyReplicas ?? 0;
    if (ready !== g.replicas) problems.push(`Deployment ${g.name}: ${ready} of ${g.replicas} replicas ready`);
  }
  const ds = await admin.get(DaemonSet, { namespace: WORKLOAD_NAMESPACE, name: 'node-exporter' });
  const ready = ds.status?.numberReady ?? 0;
  if (ready !== nodes) problems.push(`DaemonSet node-exporter: ${ready} of ${nodes} pods ready`);
  return problems;
}

/** The names of the Deployments' pods now (DaemonSet pods are never evicted by a drain). */
export async function deploymentPods(admin: Client): Promise<Set<string>> {
  const { items } = await admin.list(Pod, { namespace: WORKLOAD_NAMESPACE });
  return new Set(
    items.filter((p) => p.metadata.labels?.app !== 'node-exporter').map((p) => p.metadata.name ?? ''),
  );
}
