import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { ConnectionPool } from './http1/connection-pool.js';

/**
 * One keep-alive agent (for watches) and one {@link ConnectionPool} (for the other requests) per
 * set of TLS material. client-node builds a fresh agent on every call (no connection reuse); here
 * connections are reused until the material changes (rotated certs), then new ones take over.
 */
export class AgentPool {
  private agent: http.Agent | undefined;
  private connections: ConnectionPool | undefined;
  /** Digest of the TLS material `agent` was built with. */
  private agentKey = '';
  /** The material of the last request: the same objects again (the usual case) skip the digest. */
  private lastParts: readonly unknown[] = [];

  constructor(private readonly tls: boolean) {}

  /** The agent for a request whose credentials the kubeconfig has applied to `options`. */
  agentFor(options: https.RequestOptions): http.Agent {
    this.refresh(options);
    this.agent ??= this.tls
      ? new OneMaterialAgent({ keepAlive: true, ...tlsOptions(options) })
      : new http.Agent({ keepAlive: true });
    return this.agent;
  }

  /** The connections for a request to `server` whose credentials are applied to `options`. */
  connectionsFor(options: https.RequestOptions, server: URL): ConnectionPool {
    this.refresh(options);
    this.connections ??= new ConnectionPool({
      host: server.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(server.port) || (this.tls ? 443 : 80),
      authority: server.host,
      tls: this.tls ? tlsOptions(options) : undefined,
    });
    return this.connections;
  }

  /** Drops the agent and connections when the material differs from theirs. */
  private refresh(options: https.RequestOptions): void {
    const parts = tlsParts(options);
    if (sameParts(parts, this.lastParts)) return;
    this.lastParts = parts;
    const key = tlsDigest(options);
    if (key === this.agentKey) return;
    this.agentKey = key;
    this.agent = undefined; // its open connections (watches) end on their own
    this.connections?.close();
    this.connections = undefined;
  }

  /** Closes pooled connections. Requests and watches still running are not affected. */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
    this.connections?.close();
    this.connections = undefined;
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

/** The TLS options of `options`, those set only. */
function tlsOptions(options: https.RequestOptions): https.AgentOptions {
  const picked: https.AgentOptions = {};
  if (options.ca !== undefined) picked.ca = options.ca;
  if (options.cert !== undefined) picked.cert = options.cert;
  if (options.key !== undefined) picked.key = options.key;
  if (options.pfx !== undefined) picked.pfx = options.pfx;
  if (options.passphrase !== undefined) picked.passphrase = options.passphrase;
  if (options.rejectUnauthorized !== undefined) picked.rejectUnauthorized = options.rejectUnauthorized;
  if (options.servername !== undefined) picked.servername = options.servername;
  return picked;
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
