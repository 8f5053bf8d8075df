/**
 * Webhooks: admission (defaulting, validating, raw) and CRD conversion (hub and spoke), served over
 * HTTPS by {@link WebhookServer}, which a manager runs on every replica.
 */
export {
  type AdmissionContext,
  type AdmissionHandler,
  type AdmissionVerdict,
  type Defaulter,
  defaultingHandler,
  mutatePath,
  type Validator,
  validatePath,
  validatingHandler,
  type Warnings,
} from './admission.js';
export { CertWatcher, type CertWatcherOptions, type ServingCert } from './cert-watcher.js';
export {
  type AdmissionOptions,
  type AdmissionRegistration,
  type ConfigurationOptions,
  DEFAULT_TIMEOUT_SECONDS,
  type WebhookConfigurationObject,
  webhookConfigurations,
} from './configurations.js';
export {
  ConversionError,
  ConversionRegistry,
  type ConversionScheme,
  convert,
  defineConversion,
  type Spoke,
} from './conversion.js';
export {
  AdmissionDenied,
  type DenialOptions,
  type FieldCause,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  invalid,
} from './denial.js';
export { createJsonPatch, type PatchOperation } from './json-patch.js';
export { type WebhookMetrics, webhookMetrics } from './metrics.js';
export {
  type AdmissionOperation,
  type AdmissionRequest,
  type AdmissionResponse,
  BadReviewError,
  type ConversionRequest,
  type ConversionResponse,
  type GroupVersionKind,
  parseAdmissionReview,
  parseConversionReview,
  type UserInfo,
} from './review.js';
export {
  type OpenApiSchema,
  type PathTransform,
  type SchemaSpokeOptions,
  schemaSpoke,
  splitBySchema,
} from './schema-spoke.js';
export {
  CONVERSION_PATH,
  type ConversionOptions,
  DEFAULT_WEBHOOK_CERT_DIR,
  WebhookServer,
  type WebhookServerOptions,
} from './server.js';
