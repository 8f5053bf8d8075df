import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadKubeConfig } from '../../src/kubeconfig/kubeconfig.js';

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

  it('uses the in-cluster service account when KUBERNETES_SERVICE_HOST is set, and needs its token', () => {
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    // No pod here: the mounted token is missing, which client-go refuses too (kube-config.test.ts
    // loads a mounted one).
    expect(() => loadKubeConfig()).toThrow(
      /^kubeconfig: context "inClusterContext": cannot read tokenFile of user "inClusterUser" \/var\/run\/secrets\/kubernetes.io\/serviceaccount\/token: ENOENT$/,
    );
  });

  it('refuses in-cluster without KUBERNETES_SERVICE_PORT', () => {
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
    expect(() => loadKubeConfig()).toThrow(
      /^kubeconfig: in-cluster: .*KUBERNETES_SERVICE_PORT must both be set$/,
    );
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

  it('merges the KUBECONFIG files that exist, skipping those that do not, as kubectl does', () => {
    const first = write('first', kubeconfigYaml('https://first:6443'));
    const second = write('second', kubeconfigYaml('https://second:6443', ['main', 'extra']));
    vi.stubEnv('KUBECONFIG', [join(dir, 'absent'), first, second].join(delimiter));
    const kc = loadKubeConfig({ context: 'extra' });
    expect(kc.getCurrentCluster()?.server).toBe('https://second:6443/extra');
    expect(kc.getCluster('main')?.server).toBe('https://first:6443/main');
  });
});

describe('loadKubeConfig on a malformed kubeconfig: one line that says what is wrong', () => {
  const oneLine = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      const message = (err as Error).message;
      expect(message).not.toContain('\n');
      return message;
    }
    throw new Error('loaded');
  };

  it('bad YAML names the file and the line', () => {
    const file = write('bad', 'clusters:\n- name: a\n   cluster: {server: x}\n  bad: [');
    expect(oneLine(() => loadKubeConfig({ kubeconfig: file }))).toMatch(
      new RegExp(`^kubeconfig: ${file}: not valid YAML at line \\d+: .+ \\(from --kubeconfig\\)$`),
    );
  });

  // Each case edits the good kubeconfig; `expected` gets the edited file's path.
  it.each<[string, string | RegExp, string, (file: string) => string]>([
    [
      'a context naming an unknown cluster',
      'cluster: main',
      'cluster: gone',
      () => 'kubeconfig: context "main" names no known cluster',
    ],
    [
      'a context naming an unknown user',
      'user: admin',
      'user: nobody',
      () => 'kubeconfig: context "main" names no known user "nobody"',
    ],
    [
      'a current-context naming no context',
      'current-context: main',
      'current-context: gone',
      () => 'kubeconfig: current-context "gone" names no context (known: main)',
    ],
    [
      'no current-context',
      'current-context: main',
      '',
      () => 'kubeconfig: no current-context is set (pass --context)',
    ],
    [
      'an unreadable client certificate',
      'token: abc',
      'client-certificate: certs/missing.crt\n    client-key: certs/missing.key',
      () =>
        `kubeconfig: context "main": cannot read client-certificate of user "admin" ${join(dir, 'certs', 'missing.crt')}: ENOENT`,
    ],
    [
      'a cluster without server',
      /server: .*/,
      'proxy-url: http://p',
      (f) => `kubeconfig: ${f}: cluster "main" has no server (from --kubeconfig)`,
    ],
    [
      'a nameless entry',
      '- name: admin',
      '- nom: admin',
      (f) => `kubeconfig: ${f}: users[0] has no name (from --kubeconfig)`,
    ],
    [
      'a field of the wrong type',
      'token: abc',
      'token: [abc]',
      (f) => `kubeconfig: ${f}: user "admin": token is not a string (from --kubeconfig)`,
    ],
  ])('%s', (_what, from, to, expected) => {
    const file = write('edited', kubeconfigYaml('https://x:6443').replace(from, to));
    expect(oneLine(() => loadKubeConfig({ kubeconfig: file }))).toBe(expected(file));
  });
});
