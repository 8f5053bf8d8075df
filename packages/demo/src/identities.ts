/**
 * The operators' own identities: the demo runs the coordinator and every agent as their service
 * accounts, bound by their published deploy/rbac.yaml and held in by their deploy/admission-policy.yaml,
 * so a permission the manifests forgot fails the demo instead of hiding behind an admin certificate.
 * Each agent runs as its DaemonSet pod on its node would: with a token bound to a pod on that node.
 */
import { type ControlPlane, podBoundKubeConfig, whenAuthorized } from '@capstan/envtest';
import { type ApiError, Client, isForbidden, type KubeConfig } from '@capstan/runtime';
import { type DaemonSet, HttpTransport, Node, Pod } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';

/**
 * A KubeConfig that authenticates as service account `namespace/name`, once `probe` shows its
 * RBAC is in force.
 */
export async function serviceAccountKubeConfig(
  plane: ControlPlane,
  namespace: string,
  name: string,
  probe: (client: Client) => Promise<unknown>,
): Promise<KubeConfig> {
  return whenAuthorized(await plane.serviceAccountKubeConfig(namespace, name), `${namespace}/${name}`, probe);
}

/**
 * The agent's identity on `node`: a token bound to the agent DaemonSet's own pod there (created by
 * kube-controller-manager's DaemonSet controller, run by kwok), which names the node (what the
 * admission policy checks). A pod of our own would not do: the DaemonSet controller deletes pods it
 * owns beyond one per node, and a token outlives its pod by the apiserver's token cache at most.
 * The kwok pod runs no container: the agent itself runs in this process.
 */
export async function agentPodKubeConfig(
  plane: ControlPlane,
  daemonSet: DaemonSet,
  node: string,
): Promise<KubeConfig> {
  const admin = new Client(new HttpTransport(plane.kubeConfig));
  const namespace = daemonSet.metadata.namespace ?? '';
  const ownedByDaemonSet = (pod: Pod) =>
    pod.metadata.ownerReferences?.some((o) => o.controller && o.uid === daemonSet.metadata.uid) === true &&
    pod.metadata.deletionTimestamp === undefined;
  let podName = '';
  await eventually(
    async () => {
      const pods = await admin.list(Pod, { namespace, fieldSelector: `spec.nodeName=${node}` });
      podName = pods.items.find(ownedByDaemonSet)?.metadata.name ?? '';
      return podName !== '';
    },
    { what: `the agent DaemonSet's pod on ${node}`, timeoutMs: 60_000 },
  );
  const kubeConfig = await podBoundKubeConfig(plane.kubeConfig, namespace, 'capstan-agent', podName);
  return whenAuthorized(kubeConfig, `the agent on ${node}`, (c) =>
    c.list(Pod, { namespace, fieldSelector: `spec.nodeName=${node}`, limit: 1 }),
  );
}

/**
 * Shows that the admission policies are in force: the agent of `node` may not label `other`, and
 * the coordinator may not cordon `node` (dry runs). Resolves with what was refused, for the view.
 */
export async function policiesInForce(
  agent: KubeConfig,
  coordinator: KubeConfig,
  node: string,
  other: string,
): Promise<string[]> {
  const refused = async (what: string, write: (c: Client) => Promise<unknown>, c: Client) =>
    eventually(
      async () =>
        write(c).then(
          () => undefined,
          (err: ApiError) =>
            isForbidden(err) && err.message.includes('ValidatingAdmissionPolicy') ? what : undefined,
        ),
      { what: `the admission policy to refuse ${what}`, timeoutMs: 15_000 },
    );
  const dryRun = { dryRun: true };
  return [
    await refused(
      `the agent on ${node} labelling ${other}`,
      (c) =>
        c.patch(Node, { name: other }, 'merge', { metadata: { labels: { 'example.com/x': 'y' } } }, dryRun),
      new Client(new HttpTransport(agent)),
    ),
    await refused(
      `the coordinator cordoning ${node}`,
      (c) => c.patch(Node, { name: node }, 'merge', { spec: { unschedulable: true } }, dryRun),
      new Client(new HttpTransport(coordinator)),
    ),
  ];
}
