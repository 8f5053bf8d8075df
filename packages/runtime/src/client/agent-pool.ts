import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';

/**
 * One keep-alive agent per set of TLS material. client-node builds a fresh agent on every call (no
 * connection reuse); here connections are reused until the material changes (rotated certs), then
 * a new agent takes over.
 */
export class AgentPool {
  private agent: http.Agent | undefined;
  /** Digest of the TLS material `agent` was built with. */
  private agentKey = '';
  /** The material of the last request: the same objects again (the usual case) skip the digest. */
  private lastParts: readonly unknown[] = [];

  constructor(private readonly tls: boolean) {}

  /** The agent for a request whose credentials the kubeconfig has applied to `options`. */
  agentFor(options: https.RequestOptions): http.Agent {
    const parts = tlsParts(options);
    if (this.agent && sameParts(parts, this.lastParts)) return this.agent;
    this.lastParts = parts;
    const key = tlsDigest(options);
    if (this.agent && key === this.agentKey) return this.agent;
    this.agent = this.tls
      ? new OneMaterialAgent({
          keepAlive: true,
          ca: options.ca,
          cert: options.cert,
          key: options.key,
          pfx: options.pfx,
          passphrase: options.passphrase,
          rejectUnauthorized: options.rejectUnauthorized,
          servername: options.servername,
        })
      : new http.Agent({ keepAlive: true });
    this.agentKey = key;
    return this.agent;
  }

  /** Closes pooled connections. Requests and watches still running are not affected. */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
    this.agentKey = '';
    this.lastParts = [];
  }
}

/**
 * An https agent that holds one set of TLS material (the pool makes a new agent when it changes),
 * so its connections are told apart by host and port alone. Node's own https name appends the CA,
 * certificate and key to that, decoding each Buffer to text and building a new multi-kilobyte
 * key for every request, to look up its free sockets and TLS sessions: about a tenth of a
 * patch-per-reconcile controller's busy CPU.
 */
class OneMaterialAgent extends https.Agent {
  override getName(options?: http.ClientRequestArgs): string {
    return http.Agent.prototype.getName.call(this, options);
  }
}

function tlsParts(options: https.RequestOptions): unknown[] {
  return [
    options.ca,
    options.cert,
    options.key,
    options.pfx,
    options.passphrase,
    options.rejectUnauthorized,
    options.servername,
  ];
}

/** The same references (a kubeconfig decodes its material once), so the same digest. */
function sameParts(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function tlsDigest(options: https.RequestOptions): string {
  const hash = createHash('sha256');
  for (const part of [options.ca, options.cert, options.key, options.pfx, options.passphrase]) {
    for (const item of Array.isArray(part) ? part : [part]) {
      if (item === undefined) hash.update('\0-');
      else if (typeof item === 'string' || Buffer.isBuffer(item)) hash.update('\0+').update(item);
      else hash.update('\0?').update(JSON.stringify(item));
    }
  }
  hash.update(`\0${String(options.rejectUnauthorized)}\0${options.servername ?? ''}`);
  return hash.digest('hex');
}
