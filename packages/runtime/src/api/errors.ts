import type { ApiStatus } from './types.js';

/**
 * An error answered by the API server (or the test kit), with its HTTP code and Status reason.
 * Use the predicates below rather than comparing codes by hand.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status code, e.g. 404. */
  readonly code: number;
  /** The Status `reason`, e.g. `NotFound`, `Conflict`, `AlreadyExists`. */
  readonly reason: string;
  /** The full Status object when the server sent one. */
  readonly status: ApiStatus;
  /** For 429 (and some 5xx): how long the server asks us to wait, in seconds. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: ApiStatus, retryAfterSeconds?: number) {
    super(status.message ?? `API error ${status.code ?? 'unknown'} ${status.reason ?? ''}`.trim());
    this.status = status;
    this.code = status.code ?? 0;
    this.reason = status.reason ?? reasonForCode(this.code);
    this.retryAfterSeconds = retryAfterSeconds ?? status.details?.retryAfterSeconds;
  }
}

/** An error that a reconciler returns to say "do not retry": the controller logs and counts it only. */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 409:
      return 'Conflict';
    case 410:
      return 'Expired';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return 'Unknown';
  }
}

/** Builds an ApiError from a code, reason and message (used by transports and the test kit). */
export function apiError(
  code: number,
  reason: string,
  message: string,
  details?: ApiStatus['details'],
): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason,
    message,
    details,
  });
}

const hasCode = (err: unknown, code: number): boolean => err instanceof ApiError && err.code === code;

/** 404: the object (or kind) does not exist. */
export const isNotFound = (err: unknown): boolean => hasCode(err, 404);
/** 409 with reason Conflict: a stale resourceVersion or a failed precondition. */
export const isConflict = (err: unknown): boolean =>
  hasCode(err, 409) && (err as ApiError).reason === 'Conflict';
/** 409 with reason AlreadyExists: create of a name that is taken. */
export const isAlreadyExists = (err: unknown): boolean =>
  hasCode(err, 409) && (err as ApiError).reason === 'AlreadyExists';
/** 403: RBAC (or an admission plugin) refused. */
export const isForbidden = (err: unknown): boolean => hasCode(err, 403);
/** 422: the object failed validation. */
export const isInvalid = (err: unknown): boolean => hasCode(err, 422);
/** 410: the resourceVersion is too old (compacted); relist. */
export const isGone = (err: unknown): boolean => hasCode(err, 410);
/** 429: throttled, or an eviction refused by a PodDisruptionBudget; see `retryAfterSeconds`. */
export const isTooManyRequests = (err: unknown): boolean => hasCode(err, 429);
/** A reconcile error that must not be retried. */
export const isTerminal = (err: unknown): boolean => err instanceof TerminalError;
