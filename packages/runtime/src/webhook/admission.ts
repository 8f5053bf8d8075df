/**
 * Admission as a controller author writes it: a typed {@link Defaulter} that returns the defaulted
 * object (the server works out the JSON patch) and a typed {@link Validator} per operation, or a
 * raw {@link AdmissionHandler} for anything else. Semantics follow controller-runtime's
 * `admission.Defaulter` / `admission.Validator`: DELETE is never defaulted, a validator sees the
 * old object on UPDATE and the object being deleted on DELETE, CONNECT is allowed unexamined.
 */
import type { ApiStatus, KubeObject, ResourceType } from '../api/types.js';
import { AdmissionDenied } from './denial.js';
import { createJsonPatch, type PatchOperation } from './json-patch.js';
import type { AdmissionRequest } from './review.js';

/** What a handler learns besides the request. */
export interface AdmissionContext {
  request: AdmissionRequest;
  /** Aborted when the webhook's timeout passes: the API server has stopped waiting. */
  signal: AbortSignal;
}

/** A handler's answer; the server adds the uid and encodes the patch. */
export interface AdmissionVerdict {
  allowed: boolean;
  /** Required when not allowed: code, reason, message, causes. */
  status?: ApiStatus;
  /** Mutating webhooks only. */
  patch?: PatchOperation[];
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/**
 * A raw admission handler. Throw {@link AdmissionDenied} to deny; any other exception answers
 * "internal error" (and is counted), never crashes the server.
 */
export type AdmissionHandler = (
  request: AdmissionRequest,
  context: AdmissionContext,
) => AdmissionVerdict | Promise<AdmissionVerdict>;

/**
 * Sets defaults on objects of one kind, on CREATE and UPDATE. Gets a copy it may change: return it
 * (or a new object), or return nothing to keep the changed copy. Throw {@link AdmissionDenied} to
 * refuse the object.
 */
export interface Defaulter<T extends KubeObject> {
  default(object: T, context: AdmissionContext): T | undefined | Promise<T | undefined>;
}

/** Warnings for the user (shown by kubectl); the request is still allowed. */
export type Warnings = string[] | undefined;

/**
 * Checks objects of one kind. Each method is optional (a missing one allows); return warnings to
 * allow with them, throw {@link AdmissionDenied} (see `invalid`, `fieldInvalid`) to deny.
 */
export interface Validator<T extends KubeObject> {
  validateCreate?(object: T, context: AdmissionContext): Warnings | Promise<Warnings>;
  validateUpdate?(oldObject: T, object: T, context: AdmissionContext): Warnings | Promise<Warnings>;
  validateDelete?(object: T, context: AdmissionContext): Warnings | Promise<Warnings>;
}

/** The path controller-runtime serves a kind's defaulter on: `/mutate-<group-with-dashes>-<version>-<kind>`. */
export const mutatePath = (type: ResourceType): string => `/mutate-${pathPart(type)}`;

/** The path controller-runtime serves a kind's validator on: `/validate-<group-with-dashes>-<version>-<kind>`. */
export const validatePath = (type: ResourceType): string => `/validate-${pathPart(type)}`;

const pathPart = (type: ResourceType) =>
  `${type.group.replace(/\./g, '-')}-${type.version}-${type.kind.toLowerCase()}`;

const allowed = (warnings?: Warnings): AdmissionVerdict =>
  warnings?.length ? { allowed: true, warnings } : { allowed: true };

/** Refuses a request about another kind than the typed handler serves (a configuration mistake). */
function checkKind(type: ResourceType, request: AdmissionRequest): void {
  const { group, version, kind } = request.kind;
  if (group === type.group && version === type.version && kind === type.kind) return;
  const name = (g: string, v: string, k: string) => `${g ? `${g}/` : ''}${v}, Kind=${k}`;
  throw new AdmissionDenied(
    `this webhook serves ${name(type.group, type.version, type.kind)}, not ${name(group, version, kind)}: ` +
      'check the rules of the webhook configuration',
    { code: 400, reason: 'BadRequest' },
  );
}

/** A handler that runs `defaulter` and answers the JSON patch from the sent object to the result. */
export function defaultingHandler<T extends KubeObject>(
  type: ResourceType<T>,
  defaulter: Defaulter<T>,
): AdmissionHandler {
  return async (request, context) => {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
    checkKind(type, request);
    const sent = request.object as T;
    const copy = structuredClone(sent);
    const result = (await defaulter.default(copy, context)) ?? copy;
    const patch = createJsonPatch(sent, result);
    return patch.length > 0 ? { allowed: true, patch } : allowed();
  };
}

/** A handler that runs the validator method the operation calls for. */
export function validatingHandler<T extends KubeObject>(
  type: ResourceType<T>,
  validator: Validator<T>,
): AdmissionHandler {
  return async (request, context) => {
    if (request.operation === 'CONNECT') return allowed();
    checkKind(type, request);
    const object = request.object as T;
    const old = request.oldObject as T;
    switch (request.operation) {
      case 'CREATE':
        return allowed(await validator.validateCreate?.(object, context));
      case 'UPDATE':
        return allowed(await validator.validateUpdate?.(old, object, context));
      case 'DELETE':
        // The API server sends the object being deleted as oldObject.
        if (!old) {
          throw new AdmissionDenied('a DELETE review must carry oldObject', {
            code: 400,
            reason: 'BadRequest',
          });
        }
        return allowed(await validator.validateDelete?.(old, context));
    }
  };
}
