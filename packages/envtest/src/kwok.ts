/**
 * kwok (sigs.k8s.io/kwok) plays the kubelet: for the Nodes carrying {@link kwokNodeAnnotation} it
 * reports Ready, renews their Lease and runs the pods bound to them, with the stage files of its
 * module. It runs under its own identity with its module's `kwok-controller` RBAC.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CertPair } from '@capstan/runtime/testing';
import type { KwokAssets } from './assets.js';
import type { CrdObject } from './crds.js';
import { type ManifestObject, readManifests } from './manifests.js';
import { freePort } from './ports.js';
import { ManagedProcess } from './process.js';
import { delay } from './wait.js';

/** The annotation that hands a Node to kwok, and the value kwok selects. */
export const kwokNodeAnnotation = 'kwok.x-k8s.io/node';
export const kwokManagedValue = 'fake';

/**
 * The stages kwok runs with (those of its `kustomize/stage/fast` set): nodes become Ready at once
 * and heartbeat through a Lease; pods become Running at once, Job pods complete, deleted pods go.
 */
export const kwokStageFiles = [
  'node/fast/node-initialize.yaml',
  'node/heartbeat-with-lease/node-heartbeat-with-lease.yaml',
  'pod/fast/pod-ready.yaml',
  'pod/fast/pod-complete.yaml',
  'pod/fast/pod-delete.yaml',
];

/** What kwok needs from the control plane it joins. */
export interface KwokHost {
  workDir: string;
  createObjects(objects: ManifestObject[], options?: { ignoreExisting?: boolean }): Promise<void>;
  serviceAccountKubeConfig(namespace: string, name: string): Promise<{ path: string }>;
  installCRDs(crds: CrdObject[]): Promise<void>;
  issueServing(commonName: string): CertPair;
}

/** The kwok kinds that say where a pod's forwarded ports go: per pod, and for pods selected. */
export const kwokPortForwardCrds = [
  'kwok.x-k8s.io_portforwards.yaml',
  'kwok.x-k8s.io_clusterportforwards.yaml',
];

/**
 * Installs kwok's RBAC and port-forwarding CRDs (from its module), then starts it under its service
 * account identity. It also serves the kubelet API (TLS, on a free loopback port that its Nodes
 * report as their address and kubelet port), so the apiserver's `pods/portforward` reaches it and
 * it forwards to the target a `PortForward` (pod's name and namespace) or `ClusterPortForward` names.
 * Its node Leases last `leaseSeconds` (renewed a quarter of that apart).
 */
export async function startKwok(
  host: KwokHost,
  assets: KwokAssets,
  leaseSeconds = 40,
): Promise<ManagedProcess> {
  const rbac = ['role.yaml', 'role_binding.yaml'].flatMap((f) => readManifests(join(assets.rbacDir, f)));
  const binding = rbac.find((o) => o.kind === 'ClusterRoleBinding') as {
    subjects?: Array<{ name: string; namespace: string }>;
  };
  const subject = binding?.subjects?.[0];
  if (!subject) throw new Error(`${assets.rbacDir}/role_binding.yaml binds no service account`);
  await host.createObjects(rbac, { ignoreExisting: true });
  await host.installCRDs(
    kwokPortForwardCrds.flatMap((f) => readManifests(join(assets.crdDir, f)) as CrdObject[]),
  );
  const identity = await host.serviceAccountKubeConfig(subject.namespace, subject.name);
  const serving = host.issueServing('kwok-kubelet');
  const [certFile, keyFile] = [
    join(host.workDir, 'kwok-kubelet.crt'),
    join(host.workDir, 'kwok-kubelet.key'),
  ];
  writeFileSync(certFile, serving.cert);
  writeFileSync(keyFile, serving.key, { mode: 0o600 });
  const kubeletPort = await freePort();
  const kwok = ManagedProcess.start(
    'kwok',
    assets.binary,
    [
      `--kubeconfig=${identity.path}`,
      '--manage-all-nodes=false',
      `--manage-nodes-with-annotation-selector=${kwokNodeAnnotation}=${kwokManagedValue}`,
      `--config=${kwokStageFiles.map((f) => join(assets.stagesDir, f)).join(',')}`,
      `--node-lease-duration-seconds=${leaseSeconds}`,
      '--cidr=10.244.0.1/16',
      '--node-ip=127.0.0.1',
      `--node-port=${kubeletPort}`,
      `--server-address=127.0.0.1:${kubeletPort}`,
      `--tls-cert-file=${certFile}`,
      `--tls-private-key-file=${keyFile}`,
      '--enable-crds=PortForward,ClusterPortForward',
    ],
    join(host.workDir, 'kwok.log'),
  );
  // kwok serves nothing to probe; a bad flag or config makes it exit at once.
  await delay(300);
  if (kwok.hasExited) throw new Error(`kwok exited while starting; last log lines:\n${kwok.tail()}`);
  return kwok;
}
