import { writeFileSync } from 'node:fs';
import type { CertPair } from '@capstan/runtime/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

/** Builds a client-node KubeConfig for `user` authenticated by a client certificate. */
export function kubeConfigFor(server: string, caPem: string, user: string, pair: CertPair): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(kubeConfigYaml(server, caPem, user, pair));
  return kc;
}

/** The kubeconfig file content a person can hand to kubectl. */
export function kubeConfigYaml(server: string, caPem: string, user: string, pair: CertPair): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'envtest', cluster: { server, 'certificate-authority-data': b64(caPem) } }],
    users: [
      { name: user, user: { 'client-certificate-data': b64(pair.cert), 'client-key-data': b64(pair.key) } },
    ],
    contexts: [{ name: 'envtest', context: { cluster: 'envtest', user } }],
    'current-context': 'envtest',
  });
}

/** Writes a kubeconfig file readable only by its owner. */
export function writeKubeConfig(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
}
