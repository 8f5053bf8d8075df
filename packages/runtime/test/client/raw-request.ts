/** A GET to the apiserver with the kubeconfig's credentials and a chosen Accept, bypassing the transport. */
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export async function rawRequest(
  kubeConfig: KubeConfig,
  path: string,
  accept: string,
): Promise<{ contentType?: string; status?: number; body: Buffer }> {
  const server = new URL(kubeConfig.getCurrentCluster()!.server);
  const options: https.RequestOptions = {
    hostname: server.hostname,
    port: server.port,
    path,
    headers: { accept },
  };
  await kubeConfig.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    https
      .get(options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            contentType: res.headers['content-type'],
            status: res.statusCode,
            body: Buffer.concat(chunks),
          }),
        );
      })
      .on('error', reject);
  });
}
