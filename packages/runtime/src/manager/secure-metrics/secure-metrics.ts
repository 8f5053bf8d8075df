/**
 * Secure metrics as kubebuilder scaffolds them: `/metrics` over HTTPS, its certificate reloaded
 * when the files change, each request authenticated (TokenReview) and authorized
 * (SubjectAccessReview for `get` on the non-resource URL `/metrics`) by the API server.
 */

import type { Clock } from '../../clock.js';
import type { Logger } from '../../log/logger.js';
import type { ApiTransport } from '../../transport/transport.js';
import { CertWatcher } from '../../webhook/cert-watcher.js';
import type { SecureMetricsServing } from '../probes-server.js';
import { apiAccessReviews } from './access-reviews.js';
import { MetricsAccess, type MetricsAccessTtls } from './metrics-access.js';
import { metricsCertOrigin, SelfSignedCert } from './self-signed-cert.js';

/**
 * How `/metrics` is served securely. The process's identity needs `create` on
 * `tokenreviews.authentication.k8s.io` and `subjectaccessreviews.authorization.k8s.io`; a scraper
 * needs `get` on the non-resource URL `/metrics`.
 */
export interface MetricsSecureOptions {
  /**
   * The folder holding the serving certificate and key (e.g. a cert-manager Secret's volume).
   * Without it a self-signed certificate is made at start, as controller-runtime does: scrapers
   * must then skip verifying it.
   */
  certDir?: string;
  /** Default `tls.crt`. */
  certName?: string;
  /** Default `tls.key`. */
  keyName?: string;
  /** How often the files are compared besides being watched. Default 10 s. */
  certPollIntervalMs?: number;
  /** How long review answers are reused (defaults: controller-runtime's). */
  ttls?: MetricsAccessTtls;
}

/** The certificate and access checks a manager's probes server serves `/metrics` with. */
export function secureMetricsServing(
  options: MetricsSecureOptions,
  transport: ApiTransport,
  logger: Logger,
  clock: Clock,
): SecureMetricsServing {
  const origin = metricsCertOrigin(options.certDir);
  if (origin.kind === 'self-signed')
    logger.info('metrics server: no --metrics-cert-path; serving a self-signed certificate');
  return {
    certs:
      origin.kind === 'self-signed'
        ? new SelfSignedCert()
        : new CertWatcher({
            certDir: origin.certDir,
            certName: options.certName,
            keyName: options.keyName,
            pollIntervalMs: options.certPollIntervalMs,
            logger,
            purpose: 'metrics server',
            flag: '--metrics-cert-path',
          }),
    access: new MetricsAccess(apiAccessReviews(transport), { ttls: options.ttls, clock }),
  };
}
