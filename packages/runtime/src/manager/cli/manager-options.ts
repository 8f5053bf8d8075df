import { readFileSync } from 'node:fs';
import type { KubeConfig } from '../../kubeconfig/kube-config.js';
import { loadKubeConfig } from '../../kubeconfig/kubeconfig.js';
import type { ManagerOptions } from '../manager.js';
import type { StandardOptions } from './options.js';

const serviceAccountNamespace = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The namespace this process runs in: `POD_NAMESPACE`, else the service account's, else `default`. */
export function ownNamespace(): string {
  return podNamespace() ?? 'default';
}

/** The pod's namespace (`POD_NAMESPACE`, else the mounted service account's); undefined outside a pod. */
export function podNamespace(): string | undefined {
  if (process.env.POD_NAMESPACE) return process.env.POD_NAMESPACE;
  try {
    return readFileSync(serviceAccountNamespace, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Where the leader election Lease goes, and why there. */
export interface LeaseNamespace {
  namespace: string;
  /** `--leader-election-namespace`, `the pod's namespace` or `the kubeconfig context "x"`. */
  from: string;
}

/**
 * The Lease's namespace: the flag, else the pod's, else the kubeconfig context's (a process run
 * from a laptop). Never a silent `default`, whose Lease an operator's RBAC rarely covers.
 * @throws Error saying which flag to pass when none of these gives one.
 */
export function leaseNamespace(flag: string | undefined, kubeConfig: KubeConfig): LeaseNamespace {
  if (flag) return { namespace: flag, from: '--leader-election-namespace' };
  const pod = podNamespace();
  if (pod) return { namespace: pod, from: "the pod's namespace" };
  const context = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
  if (context?.namespace)
    return { namespace: context.namespace, from: `the kubeconfig context "${context.name}"` };
  throw new Error(
    '--leader-elect outside a pod needs the Lease namespace: pass --leader-election-namespace ' +
      '(or set POD_NAMESPACE, or a namespace on the kubeconfig context)',
  );
}

/**
 * Turns the standard flags into {@link ManagerOptions}: loads the kubeconfig (file, in-cluster or
 * the current context) and maps leader election, bind addresses and logging. `extra` wins.
 */
export function managerOptionsFromFlags(
  flags: StandardOptions,
  extra: Partial<ManagerOptions> = {},
): ManagerOptions {
  if (flags.leaderElect && !flags.leaderElectionId)
    throw new Error('--leader-elect needs --leader-election-id');
  const kubeConfig = loadKubeConfig({ kubeconfig: flags.kubeconfig, context: flags.context });
  const lease = flags.leaderElect ? leaseNamespace(flags.leaderElectionNamespace, kubeConfig) : undefined;
  return {
    kubeConfig,
    // `--namespace a,b`: several namespaces.
    ...(flags.namespace?.includes(',')
      ? {
          namespaces: flags.namespace
            .split(',')
            .map((n) => n.trim())
            .filter(Boolean),
        }
      : { namespace: flags.namespace }),
    leaderElection: lease
      ? {
          id: flags.leaderElectionId as string,
          namespace: lease.namespace,
          namespaceFrom: lease.from,
          leaseDurationMs: flags.leaseDurationMs,
          renewDeadlineMs: flags.renewDeadlineMs,
          retryPeriodMs: flags.retryPeriodMs,
        }
      : undefined,
    metricsBindAddress: flags.metricsBindAddress,
    metricsSecure: flags.metricsSecure
      ? {
          certDir: flags.metricsCertPath || undefined,
          certName: flags.metricsCertName,
          keyName: flags.metricsCertKey,
        }
      : undefined,
    healthProbeBindAddress: flags.healthProbeBindAddress,
    enableDebugEndpoint: flags.enableDebugEndpoint,
    debugBindAddress: flags.debugBindAddress,
    logLevel: flags.logLevel,
    logFormat: flags.logFormat,
    webhook: { port: flags.webhookPort, certDir: flags.webhookCertDir },
    ...extra,
  };
}
