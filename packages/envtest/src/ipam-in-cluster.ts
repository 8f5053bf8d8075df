/**
 * Cluster API's in-cluster IPAM provider (`sigs.k8s.io/cluster-api-ipam-provider-in-cluster`) on
 * a control plane that runs Cluster API: its CRDs (InClusterIPPool, GlobalInClusterIPPool and the
 * prefix pools) from the same module version it is built from, then its manager, which answers
 * each IPAddressClaim on one of its pools with an IPAddress (the IPAM contract). Built from the Go
 * module proxy on first use (see `resolveTool`), with its webhooks off (`--webhook-port=0`).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CrdObject } from './crds.js';
import { moduleSource } from './go-build.js';
import { httpOk } from './http.js';
import { readManifests } from './manifests.js';
import { freePorts } from './ports.js';
import { ManagedProcess } from './process.js';
import { resolveTool, tools } from './tools.js';
import { waitFor } from './wait.js';

/** What the provider needs of the control plane. */
export interface InClusterIpamHost {
  /** An identity allowed to read Clusters and pools and write IPAddresses and claims (the admin's in tests). */
  kubeconfigPath: string;
  /** Where its log goes. */
  workDir: string;
  installCRDs(crds: CrdObject[]): Promise<void>;
}

/** The in-cluster provider's CRDs, read from its module's source at the version built. */
export async function inClusterIpamCrds(): Promise<CrdObject[]> {
  const spec = tools['ipam-in-cluster'];
  const { dir } = await moduleSource(spec.fromSource.module, spec.version);
  const bases = join(dir, 'config', 'crd', 'bases');
  return readdirSync(bases)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => readManifests(join(bases, f)) as CrdObject[]);
}

/** The running provider. */
export interface InClusterIpam {
  /** Its log (the manager's stdout and stderr). */
  logFile: string;
  /** Stops it (before the control plane). */
  stop(): Promise<void>;
}

/** Installs the provider's CRDs and starts its manager; resolves once it reports ready. */
export async function startInClusterIpam(host: InClusterIpamHost): Promise<InClusterIpam> {
  const binary = await resolveTool('ipam-in-cluster');
  await host.installCRDs(await inClusterIpamCrds());
  const [healthPort, diagnosticsPort] = await freePorts(2);
  const logFile = join(host.workDir, 'ipam-in-cluster.log');
  const proc = ManagedProcess.start(
    'ipam-in-cluster',
    binary,
    [
      `--kubeconfig=${host.kubeconfigPath}`,
      '--leader-elect=false',
      '--webhook-port=0',
      `--health-probe-bind-address=127.0.0.1:${healthPort}`,
      `--diagnostics-address=127.0.0.1:${diagnosticsPort}`,
      '--insecure-diagnostics',
    ],
    logFile,
  );
  try {
    await waitFor('ipam-in-cluster', proc, 60_000, () => httpOk(`http://127.0.0.1:${healthPort}/readyz`));
  } catch (err) {
    await proc.stop(2_000);
    throw err;
  }
  return { logFile, stop: () => proc.stop(5_000) };
}
