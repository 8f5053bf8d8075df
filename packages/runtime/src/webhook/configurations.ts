/**
 * The Mutating/ValidatingWebhookConfigurations for what a server serves, written from the same
 * registrations (as controller-gen writes them from markers), so each webhook's rules, failure
 * policy and timeout are declared once, beside its handler, and the deploy manifests can be checked
 * against the code.
 */
import type { ResourceType } from '../api/types.js';
import type { AdmissionOperation } from './review.js';

/** Where, and how, the API server is to call one admission webhook. */
export interface AdmissionOptions {
  /**
   * What the API server does when it cannot call the webhook (no replica ready, a bad certificate, a
   * timeout): `Fail` refuses the write, `Ignore` lets it through unexamined. Default `Fail`.
   */
  failurePolicy?: 'Fail' | 'Ignore';
  /** How long the API server waits, 1 to 30 s. Default 10. The handler's deadline defaults to it. */
  timeoutSeconds?: number;
  /** The server-side deadline of the handler, when it must be shorter than `timeoutSeconds`. */
  timeoutMs?: number;
  /** Default: CREATE and UPDATE for a defaulter, CREATE, UPDATE and DELETE for a validator. */
  operations?: AdmissionOperation[];
  /**
   * The webhook's name in its configuration (three or more dot-separated parts). Default
   * `m<kind>.<group>` or `v<kind>.<group>`; for the core group `.kb.io`, as kubebuilder names them.
   */
  name?: string;
}

/** One admission webhook as registered on a server. */
export interface AdmissionRegistration {
  path: string;
  mutating: boolean;
  /** The kind it serves; raw handlers without one get no configuration entry. */
  type?: ResourceType;
  options: AdmissionOptions;
}

/** Options of {@link webhookConfigurations}. */
export interface ConfigurationOptions {
  /** The Service in front of the webhook server. */
  service: { name: string; namespace: string; port?: number };
  /** Default `mutating-webhook-configuration`, as kubebuilder names it. */
  mutatingName?: string;
  /** Default `validating-webhook-configuration`. */
  validatingName?: string;
}

/** A webhook configuration object, as the API server takes it. */
export interface WebhookConfigurationObject {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string };
  webhooks: Array<Record<string, unknown>>;
}

/** The defaults of {@link AdmissionOptions}, as one place states them. */
export const DEFAULT_TIMEOUT_SECONDS = 10;
const defaultOperations = (mutating: boolean): AdmissionOperation[] =>
  mutating ? ['CREATE', 'UPDATE'] : ['CREATE', 'UPDATE', 'DELETE'];

function entry(r: AdmissionRegistration & { type: ResourceType }, options: ConfigurationOptions) {
  const { type } = r;
  const service = { name: options.service.name, namespace: options.service.namespace, path: r.path };
  return {
    name: r.options.name ?? `${r.mutating ? 'm' : 'v'}${type.kind.toLowerCase()}.${type.group || 'kb.io'}`,
    clientConfig: { service: options.service.port ? { ...service, port: options.service.port } : service },
    rules: [
      {
        apiGroups: [type.group],
        apiVersions: [type.version],
        operations: r.options.operations ?? defaultOperations(r.mutating),
        resources: [type.plural],
      },
    ],
    failurePolicy: r.options.failurePolicy ?? 'Fail',
    timeoutSeconds: r.options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  };
}

/** The configurations calling `service` for every typed registration; kinds without one are absent. */
export function webhookConfigurations(
  registrations: readonly AdmissionRegistration[],
  options: ConfigurationOptions,
): WebhookConfigurationObject[] {
  const typed = registrations.filter((r): r is AdmissionRegistration & { type: ResourceType } => !!r.type);
  const configuration = (mutating: boolean): WebhookConfigurationObject[] => {
    const webhooks = typed.filter((r) => r.mutating === mutating).map((r) => entry(r, options));
    if (webhooks.length === 0) return [];
    return [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
        metadata: {
          name: mutating
            ? (options.mutatingName ?? 'mutating-webhook-configuration')
            : (options.validatingName ?? 'validating-webhook-configuration'),
        },
        webhooks,
      },
    ];
  };
  return [...configuration(true), ...configuration(false)];
}
