import { readFileSync } from 'node:fs';
import { loadKubeConfig } from '../../client/kubeconfig.js';
import type { ManagerOptions } from '../manager.js';
import type { StandardOptions } from './options.js';

const serviceAccountNamespace = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The namespace this process runs in: `POD_NAMESPACE`, else the service account's, else `default`. */
export function ownNamespace(): string {
  if (process.env.POD_NAMESPACE) return process.env.POD_NAMESPACE;
  try {
    return readFileSync(serviceAccountNamespace, 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
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
  return {
    kubeConfig: loadKubeConfig({ kubeconfig: flags.kubeconfig, context: flags.context }),
    namespace: flags.namespace,
    leaderElection: flags.leaderElect
      ? {
          id: flags.leaderElectionId as string,
          namespace: flags.leaderElectionNamespace ?? ownNamespace(),
          leaseDurationMs: flags.leaseDurationMs,
          renewDeadlineMs: flags.renewDeadlineMs,
          retryPeriodMs: flags.retryPeriodMs,
        }
      : undefined,
    metricsBindAddress: flags.metricsBindAddress,
    healthProbeBindAddress: flags.healthProbeBindAddress,
    enableDebugEndpoint: flags.enableDebugEndpoint,
    debugBindAddress: flags.debugBindAddress,
    logLevel: flags.logLevel,
    logFormat: flags.logFormat,
    webhook: { port: flags.webhookPort, certDir: flags.webhookCertDir },
    ...extra,
  };
}
