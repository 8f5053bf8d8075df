/**
 * How a webhook says no: a denial with an HTTP code, a reason and per-field causes, which the API
 * server passes on to the user (`admission webhook "..." denied the request: <message>`) with the
 * causes in the Status `details`, so `kubectl` and clients show which field is wrong.
 */
import type { ApiStatus } from '../api/types.js';

/** One field's problem, as in `metav1.StatusCause`. */
export interface FieldCause {
  /** The field path, e.g. `spec.recipients[0]`. */
  field: string;
  message: string;
  /** E.g. `FieldValueInvalid`, `FieldValueRequired`, `FieldValueForbidden`. Default `FieldValueInvalid`. */
  reason?: string;
}

/** Options of {@link AdmissionDenied}. */
export interface DenialOptions {
  /** HTTP code the user sees. Default 403 without causes, 422 with them. */
  code?: number;
  /** Status reason. Default `Forbidden`, or `Invalid` with causes. */
  reason?: string;
  causes?: FieldCause[];
  /** Warnings shown to the user alongside the denial. */
  warnings?: string[];
}

/** Thrown by a validator (or defaulter) to deny the request. */
export class AdmissionDenied extends Error {
  override readonly name = 'AdmissionDenied';
  readonly code: number;
  readonly reason: string;
  readonly causes: FieldCause[];
  readonly warnings: string[];

  constructor(message: string, options: DenialOptions = {}) {
    super(message);
    this.causes = options.causes ?? [];
    const invalid = this.causes.length > 0;
    this.code = options.code ?? (invalid ? 422 : 403);
    this.reason = options.reason ?? (invalid ? 'Invalid' : 'Forbidden');
    this.warnings = options.warnings ?? [];
  }

  /** The Status the webhook answers with. */
  toStatus(): ApiStatus {
    return {
      status: 'Failure',
      code: this.code,
      reason: this.reason,
      message: this.message,
      ...(this.causes.length > 0
        ? {
            details: {
              causes: this.causes.map((c) => ({
                field: c.field,
                message: c.message,
                reason: c.reason ?? 'FieldValueInvalid',
              })),
            },
          }
        : {}),
    };
  }
}

/** A field's problem, worded as the API server words its own (`Invalid value: "x": why`). */
export function fieldInvalid(field: string, value: unknown, detail: string): FieldCause {
  return {
    field,
    message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
    reason: 'FieldValueInvalid',
  };
}

/** A required field is missing. */
export function fieldRequired(field: string, detail = 'Required value'): FieldCause {
  return { field, message: detail, reason: 'FieldValueRequired' };
}

/** A field may not be set or changed. */
export function fieldForbidden(field: string, detail: string): FieldCause {
  return { field, message: `Forbidden: ${detail}`, reason: 'FieldValueForbidden' };
}

/**
 * Denies with 422 Invalid and the causes, the message listing each as `field: message` after
 * `<Kind> "<name>" is invalid:`, as the API server's own validation does.
 */
export function invalid(kind: string, name: string | undefined, causes: FieldCause[]): AdmissionDenied {
  const list = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return new AdmissionDenied(`${kind} ${JSON.stringify(name ?? '')} is invalid: ${list}`, { causes });
}
