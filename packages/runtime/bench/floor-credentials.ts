import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ClusterAccess } from '@capstan/runtime';

/** The admin's TLS material in a private file, and how to remove it again. */
export interface FloorCredentials {
  /** The file's path, for floor-probe.ts and http-client-probe.ts. */
  file: string;
  /** Removes the file and its folder; safe to call more than once. */
  remove(): void;
}

/**
 * Writes the current cluster's server and TLS material (PEM text) to a new private file, for
 * floor-probe.ts, which loads no kubeconfig parser. The caller removes it when the rows are done;
 * should the bench die first, the process's exit removes it too (the key is the cluster admin's).
 */
export async function writeFloorCredentials(kubeConfig: ClusterAccess): Promise<FloorCredentials> {
  const options: https.RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw new Error('floor credentials: the kubeconfig has no current cluster');
  const pem = (x: unknown) => (x === undefined ? undefined : String(x));
  const material = { server, ca: pem(options.ca), cert: pem(options.cert), key: pem(options.key) };
  const file = join(mkdtempSync(join(tmpdir(), 'capstan-bench-floor-')), 'credentials.json');
  const remove = () => {
    rmSync(dirname(file), { recursive: true, force: true });
    process.off('exit', remove);
  };
  process.on('exit', remove);
  writeFileSync(file, JSON.stringify(material), { mode: 0o600 });
  return { file, remove };
}
