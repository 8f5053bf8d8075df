/** Where `--leader-elect` puts its Lease: never a silent `default`. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KubeConfig } from '../../../src/kubeconfig/kube-config.js';
import { leaseNamespace } from '../../../src/manager/cli/manager-options.js';

const kubeconfig = (namespace?: string) =>
  KubeConfig.fromString(
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{ name: c, cluster: { server: "https://127.0.0.1:6443" } }]',
      'users: [{ name: u, user: { token: t } }]',
      `contexts: [{ name: dev, context: { cluster: c, user: u${namespace ? `, namespace: ${namespace}` : ''} } }]`,
      'current-context: dev',
    ].join('\n'),
  );

afterEach(() => vi.unstubAllEnvs());

describe('leaseNamespace', () => {
  it('takes the flag first, then the pod namespace, then the kubeconfig context', () => {
    vi.stubEnv('POD_NAMESPACE', 'pod-ns');
    expect(leaseNamespace('flag-ns', kubeconfig('ctx-ns'))).toEqual({
      namespace: 'flag-ns',
      from: '--leader-election-namespace',
    });
    expect(leaseNamespace(undefined, kubeconfig('ctx-ns'))).toEqual({
      namespace: 'pod-ns',
      from: "the pod's namespace",
    });
    vi.stubEnv('POD_NAMESPACE', '');
    expect(leaseNamespace(undefined, kubeconfig('ctx-ns'))).toEqual({
      namespace: 'ctx-ns',
      from: 'the kubeconfig context "dev"',
    });
  });

  it('refuses to guess outside a pod with no namespace anywhere, and says which flag to pass', () => {
    vi.stubEnv('POD_NAMESPACE', '');
    expect(() => leaseNamespace(undefined, kubeconfig())).toThrow(/--leader-election-namespace/);
  });
});
