/**
 * VCD's error model: every failure carries an HTTP status (VCD's `majorErrorCode`), a
 * `minorErrorCode` and a message, rendered as an XML `Error` element on the legacy API and as
 * `{minorErrorCode, message, stackTrace}` on CloudAPI.
 */
import { doc, el } from '../xml/build.js';
import { NS } from '../xml/ns.js';

/** An error answered to the client in VCD's shape. Thrown by handlers, caught by the server. */
export class VcdError extends Error {
  constructor(
    readonly status: number,
    readonly minorErrorCode: string,
    message: string,
    /** Extra response headers (e.g. `Retry-After` on 429). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'VcdError';
  }
}

/** The errors VCD answers, by situation. */
export const errors = {
  badRequest: (message: string) => new VcdError(400, 'BAD_REQUEST', `Bad request: ${message}`),
  duplicateName: (message: string) => new VcdError(400, 'DUPLICATE_NAME', message),
  invalidReference: (message: string) => new VcdError(400, 'INVALID_REFERENCE', message),
  busyEntity: (entity: string, operation: string, taskId: string) =>
    new VcdError(
      400,
      'BUSY_ENTITY',
      `The entity Ref: ${entity} is busy completing an operation ${operation}. ${operation}(com.vmware.vcloud.entity.task:${taskId})`,
    ),
  unauthorized: (message = 'Not authenticated or the session has expired') =>
    new VcdError(401, 'UNAUTHORIZED', message),
  /** VCD answers 403 both for objects the caller may not see and for objects that do not exist. */
  forbidden: (
    message = 'Either you need some or all of the following rights [Entity] to perform operations [Read] for the entity or the entity does not exist.',
  ) => new VcdError(403, 'ACCESS_TO_RESOURCE_IS_FORBIDDEN', message),
  notFound: (message = 'The requested resource does not exist.') =>
    new VcdError(404, 'RESOURCE_NOT_FOUND', message),
  methodNotAllowed: (method: string) =>
    new VcdError(405, 'METHOD_NOT_ALLOWED', `HTTP method ${method} is not allowed for this resource.`),
  notAcceptable: (message = 'The request has invalid accept header: Invalid API version requested') =>
    new VcdError(406, 'NOT_ACCEPTABLE', message),
  unsupportedMediaType: (got: string, want: string) =>
    new VcdError(415, 'UNSUPPORTED_MEDIA_TYPE', `Unsupported content type "${got}"; expected "${want}".`),
  invalidState: (message: string) => new VcdError(400, 'BAD_REQUEST', message),
  conflict: (message: string) => new VcdError(409, 'CONFLICT', message),
  preconditionFailed: (message: string) => new VcdError(412, 'PRECONDITION_FAILED', message),
  tooManyRequests: () => new VcdError(429, 'TOO_MANY_REQUESTS', 'Too many requests.', { 'Retry-After': '1' }),
  internal: (message = 'An internal server error occurred.') =>
    new VcdError(500, 'INTERNAL_SERVER_ERROR', message),
  unavailable: () => new VcdError(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable.'),
};

/** The `Error` element (without XML declaration), also embedded in failed tasks. */
export function errorElement(
  e: { status: number; minorErrorCode: string; message: string },
  root: boolean,
): string {
  return el('Error', {
    xmlns: root ? NS.vcloud : undefined,
    minorErrorCode: e.minorErrorCode,
    message: e.message,
    majorErrorCode: e.status,
    stackTrace: `com.vmware.vcloud.api.presentation.service.${e.minorErrorCode}: ${e.message}`,
  });
}

/** The whole XML error document. */
export const errorXml = (e: VcdError): string => doc(errorElement(e, true));

/** The CloudAPI JSON error body. */
export function errorJson(e: VcdError): string {
  return JSON.stringify({
    minorErrorCode: e.minorErrorCode,
    message: e.message,
    stackTrace: `com.vmware.vcloud.api.presentation.service.${e.minorErrorCode}: ${e.message}`,
  });
}
