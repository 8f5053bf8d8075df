import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadKubeConfig } from '../../src/client/kubeconfig.js';

const kubeconfigYaml = (server: string, contexts: string[] = ['main']) => `
apiVersion: v1
kind: Config
clusters:
${contexts.map((c) => `- name: ${c}\n  cluster:\n    server: ${server}/${c}\n    insecure-skip-tls-verify: true`).join('\n')}
users:
- name: admin
  user:
    token: abc
contexts:
${contexts.map((c) => `- name: ${c}\n  context:\n    cluster: ${c}\n    user: admin`).join('\n')}
current-context: ${contexts[0]}
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-kubeconfig-'));
  // A clean slate: no KUBECONFIG, not in a cluster, an empty home.
  vi.stubEnv('KUBECONFIG', '');
  vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
  vi.stubEnv('KUBERNETES_SERVICE_PORT', '');
  vi.stubEnv('HOME', join(dir, 'home'));
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('loadKubeConfig', () => {
  it('loads an explicit file over KUBECONFIG', () => {
    const explicit = write('explicit', kubeconfigYaml('https://explicit:6443'));
    vi.stubEnv('KUBECONFIG', write('env', kubeconfigYaml('https://env:6443')));
    expect(loadKubeConfig({ kubeconfig: explicit }).getCurrentCluster()?.server).toBe(
      'https://explicit:6443/main',
    );
  });

  it('loads KUBECONFIG when no file is given, over in-cluster and home', () => {
    vi.stubEnv('KUBECONFIG', write('env', kubeconfigYaml('https://env:6443')));
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    expect(loadKubeConfig().getCurrentCluster()?.server).toBe('https://env:6443/main');
  });

  it('uses the in-cluster service account when KUBERNETES_SERVICE_HOST is set', () => {
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    const kc = loadKubeConfig();
    expect(kc.getCurrentCluster()?.server).toBe('https://10.0.0.1:443');
    expect(kc.getCurrentCluster()?.caFile).toBe('/var/run/secrets/kubernetes.io/serviceaccount/ca.crt');
  });

  it('falls back to ~/.kube/config', () => {
    mkdirSync(join(dir, 'home', '.kube'), { recursive: true });
    writeFileSync(join(dir, 'home', '.kube', 'config'), kubeconfigYaml('https://home:6443'));
    expect(loadKubeConfig().getCurrentCluster()?.server).toBe('https://home:6443/main');
  });

  it('fails clearly when there is no kubeconfig anywhere', () => {
    expect(() => loadKubeConfig()).toThrow(/no kubeconfig/);
  });

  it('switches to the named context, and refuses an unknown one', () => {
    const file = write('multi', kubeconfigYaml('https://multi:6443', ['one', 'two']));
    expect(loadKubeConfig({ kubeconfig: file }).getCurrentCluster()?.server).toBe('https://multi:6443/one');
    expect(loadKubeConfig({ kubeconfig: file, context: 'two' }).getCurrentCluster()?.server).toBe(
      'https://multi:6443/two',
    );
    expect(() => loadKubeConfig({ kubeconfig: file, context: 'three' })).toThrow(
      /no context "three".*one, two/,
    );
  });
});
