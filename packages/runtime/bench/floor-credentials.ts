import { mkdtempSync, writeFileSync } from 'node:fs';
import type https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterAccess } from '@capstan/runtime';

/**
 * Writes the current cluster's server and TLS material (PEM text) to a new private file, for
 * floor-probe.ts, which loads no kubeconfig parser. Returns the file's path.
 */
export async function writeFloorCredentials(kubeConfig: ClusterAccess): Promise<string> {
  const options: https.RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw new Error('floor credentials: the kubeconfig has no current cluster');
  const pem = (x: unknown) => (x === undefined ? undefined : String(x));
  const material = { server, ca: pem(options.ca), cert: pem(options.cert), key: pem(options.key) };
  const file = join(mkdtempSync(join(tmpdir(), 'capstan-bench-floor-')), 'credentials.json');
  writeFileSync(file, JSON.stringify(material), { mode: 0o600 });
  return file;
}
