import { createHash } from 'node:crypto';
import type https from 'node:https';
import { ConnectionPool } from './http1/connection-pool.js';

/**
 * One {@link ConnectionPool} per set of TLS material. client-node builds a fresh agent on every
 * call (no connection reuse); here connections are reused until the material changes (rotated
 * certs), then a new pool takes over and the old one's idle connections close.
 */
export class ConnectionPools {
  private pool: ConnectionPool | undefined;
  /** Digest of the TLS material `pool` was built with. */
  private poolKey = '';
  /** The material of the last request: the same objects again (the usual case) skip the digest. */
  private lastParts: readonly unknown[] = [];

  constructor(private readonly tls: boolean) {}

  /** The connections for a request to `server` whose credentials the kubeconfig applied to `options`. */
  for(options: https.RequestOptions, server: URL): ConnectionPool {
    const parts = tlsParts(options);
    if (this.pool && sameParts(parts, this.lastParts)) return this.pool;
    this.lastParts = parts;
    const key = tlsDigest(options);
    if (this.pool && key === this.poolKey) return this.pool;
    this.pool?.close(); // requests in flight on it finish first
    this.poolKey = key;
    this.pool = new ConnectionPool({
      host: server.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(server.port) || (this.tls ? 443 : 80),
      authority: server.host,
      tls: this.tls ? tlsOptions(options) : undefined,
    });
    return this.pool;
  }

  /** Closes idle connections. Requests and watches still running are not affected. */
  close(): void {
    this.pool?.close();
    this.pool = undefined;
    this.poolKey = '';
    this.lastParts = [];
  }
}

/** What of a request's options makes its TLS material; a new set means a new pool. */
const TLS_KEYS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/** The TLS options of `options`, those set only. */
function tlsOptions(options: https.RequestOptions): https.AgentOptions {
  const picked: Record<string, unknown> = {};
  for (const key of TLS_KEYS) if (options[key] !== undefined) picked[key] = options[key];
  return picked as https.AgentOptions;
}

function tlsParts(options: https.RequestOptions): unknown[] {
  return TLS_KEYS.map((key) => options[key]);
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
