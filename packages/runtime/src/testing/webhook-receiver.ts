/**
 * A local HTTPS webhook receiver for tests ({@link startWebhookReceiver}), serving a certificate
 * from a test CA: records each JSON body it is POSTed, or hangs (never answers) while `hang` is set.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { CertificateAuthority } from '../pki/certificate-authority.js';

/** A running webhook receiver. */
export interface WebhookReceiver {
  url: string;
  /** The CA that signed its certificate, PEM. */
  caPem: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON was posted
  bodies: any[];
  /** While true, requests are held open and never answered. */
  hang: boolean;
  /** Requests received (answered or not). */
  hits: number;
  close(): Promise<void>;
}

/**
 * Starts a receiver on 127.0.0.1 at an ephemeral port; `status` is what it answers (default 200),
 * `ca` signs its certificate (default a new one; its PEM is `caPem`).
 */
export async function startWebhookReceiver(
  options: { hang?: boolean; status?: number; ca?: CertificateAuthority } = {},
): Promise<WebhookReceiver> {
  const ca = options.ca ?? CertificateAuthority.create('capstan-notify-test-ca');
  const pair = ca.issueServing('webhook-receiver');
  const receiver = { bodies: [], hang: options.hang ?? false, hits: 0 } as unknown as WebhookReceiver;
  const server: Server = createServer({ cert: pair.cert, key: pair.key }, (req, res) => {
    receiver.hits++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (receiver.hang) return;
      receiver.bodies.push(JSON.parse(Buffer.concat(chunks).toString()));
      res.writeHead(options.status ?? 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.caPem = ca.certPem;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
