/**
 * The metrics server's certificate when no folder names one: made once at start, in memory (a
 * pod's root filesystem may be read-only), never rotated. Scrapers cannot verify it against a CA
 * they know, so a ServiceMonitor using it skips verification; the bearer token still authenticates.
 */
import { createHash } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { selfSignedServing } from '../../pki/self-signed.js';
import type { ServingCert, ServingCertSource } from '../../webhook/cert-watcher.js';

/** A serving pair made at {@link SelfSignedCert.start}; it never reloads. */
export class SelfSignedCert implements ServingCertSource {
  private current: ServingCert | undefined;

  constructor(private readonly commonName = 'capstan-metrics') {}

  start(): ServingCert {
    if (this.current) return this.current;
    const pair = selfSignedServing(this.commonName);
    const cert = Buffer.from(pair.cert);
    const key = Buffer.from(pair.key);
    const digest = createHash('sha256').update(cert).update(key).digest('hex');
    this.current = { cert, key, context: createSecureContext({ cert, key }), digest };
    return this.current;
  }

  onReload(): void {
    // Made once; nothing to reload.
  }

  stop(): void {}
}

/** Where the metrics certificate comes from: the files in `certDir` if set, else one made at start. */
export function metricsCertOrigin(
  certDir: string | undefined,
): { kind: 'files'; certDir: string } | { kind: 'self-signed' } {
  return certDir === undefined || certDir.trim() === ''
    ? { kind: 'self-signed' }
    : { kind: 'files', certDir };
}
