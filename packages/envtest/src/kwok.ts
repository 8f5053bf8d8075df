/**
 * kwok (sigs.k8s.io/kwok) plays the kubelet: for the Nodes carrying {@link kwokNodeAnnotation} it
 * reports Ready, renews their Lease and runs the pods bound to them, with the stage files of its
 * module. It runs under its own identity with its module's `kwok-controller` RBAC.
 */
import { join } from 'node:path';
import type { KwokAssets } from './assets.js';
import { type ManifestObject, readManifests } from './manifests.js';
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
}

/** Installs kwok's RBAC (from its module), then starts it under its service account identity. */
export async function startKwok(host: KwokHost, assets: KwokAssets): Promise<ManagedProcess> {
  const rbac = ['role.yaml', 'role_binding.yaml'].flatMap((f) => readManifests(join(assets.rbacDir, f)));
  const binding = rbac.find((o) => o.kind === 'ClusterRoleBinding') as {
    subjects?: Array<{ name: string; namespace: string }>;
  };
  const subject = binding?.subjects?.[0];
  if (!subject) throw new Error(`${assets.rbacDir}/role_binding.yaml binds no service account`);
  await host.createObjects(rbac, { ignoreExisting: true });
  const identity = await host.serviceAccountKubeConfig(subject.namespace, subject.name);
  const kwok = ManagedProcess.start(
    'kwok',
    assets.binary,
    [
      `--kubeconfig=${identity.path}`,
      '--manage-all-nodes=false',
      `--manage-nodes-with-annotation-selector=${kwokNodeAnnotation}=${kwokManagedValue}`,
      `--config=${kwokStageFiles.map((f) => join(assets.stagesDir, f)).join(',')}`,
      '--node-lease-duration-seconds=40',
      '--cidr=10.244.0.1/16',
    ],
    join(host.workDir, 'kwok.log'),
  );
  // kwok serves nothing to probe; a bad flag or config makes it exit at once.
  await delay(300);
  if (kwok.hasExited) throw new Error(`kwok exited while starting; last log lines:\n${kwok.tail()}`);
  return kwok;
}
