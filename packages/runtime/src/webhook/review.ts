/**
 * The wire format the API server speaks to webhooks: `AdmissionReview` and `ConversionReview`, both
 * `v1`, and the checks that turn an untrusted request body into a typed request or a clear reason
 * why not (answered as 400). Reading a body never throws anything but {@link BadReviewError}.
 */
import type { ApiStatus, KubeObject } from '../api/types.js';

/** What an admission request asks about. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

const OPERATIONS: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** A group, version and kind as the review names them. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** Who asked the API server. */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** `AdmissionReview.request` (admission.k8s.io/v1). */
export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind?: GroupVersionKind;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: UserInfo;
  /** The object as it would be stored (absent on DELETE). */
  object?: KubeObject;
  /** The object before an UPDATE, or the object being deleted on DELETE. */
  oldObject?: KubeObject;
  dryRun?: boolean;
  options?: Record<string, unknown>;
}

/** `AdmissionReview.response` (admission.k8s.io/v1). */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  /** Why a request was denied: code, reason, message and field causes, shown to the user. */
  status?: ApiStatus;
  /** Base64 of a JSON patch (mutating webhooks only). */
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** `ConversionReview.request` (apiextensions.k8s.io/v1). */
export interface ConversionRequest {
  uid: string;
  /** E.g. `example.capstan.dev/v1`. */
  desiredAPIVersion: string;
  objects: KubeObject[];
}

/** `ConversionReview.response` (apiextensions.k8s.io/v1). */
export interface ConversionResponse {
  uid: string;
  convertedObjects: KubeObject[];
  result: { status: 'Success' } | { status: 'Failure'; message: string };
}

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';
export const CONVERSION_API_VERSION = 'apiextensions.k8s.io/v1';

/** A request body that is not a review we can answer; the server answers 400 with the message. */
export class BadReviewError extends Error {
  override readonly name = 'BadReviewError';
  /** The request's uid, when the body got far enough to have one. */
  readonly uid: string | undefined;
  constructor(message: string, uid?: string) {
    super(message);
    this.uid = uid;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function checkEnvelope(body: unknown, kind: string, apiVersion: string): Record<string, unknown> {
  if (!isObject(body)) throw new BadReviewError(`the body must be a JSON ${kind} object`);
  if (body.kind !== kind) throw new BadReviewError(`kind must be ${kind}, got ${JSON.stringify(body.kind)}`);
  if (body.apiVersion !== apiVersion) {
    throw new BadReviewError(
      `apiVersion ${JSON.stringify(body.apiVersion)} is not served: list only ${apiVersion.split('/')[1]} ` +
        `in the webhook's review versions (${apiVersion})`,
    );
  }
  if (!isObject(body.request)) throw new BadReviewError(`${kind} has no request object`);
  const request = body.request;
  if (typeof request.uid !== 'string' || request.uid === '') {
    throw new BadReviewError(`${kind}: request.uid must be a non-empty string`);
  }
  return request;
}

function checkObjectField(request: Record<string, unknown>, field: string, uid: string): void {
  const value = request[field];
  if (value === undefined || value === null) return;
  if (!isObject(value) || !isObject(value.metadata ?? {})) {
    throw new BadReviewError(`AdmissionReview: request.${field} must be an object`, uid);
  }
}

/** Reads an `AdmissionReview` v1 body into its request, or throws {@link BadReviewError}. */
export function parseAdmissionReview(body: unknown): AdmissionRequest {
  const request = checkEnvelope(body, 'AdmissionReview', ADMISSION_API_VERSION);
  const uid = request.uid as string;
  const bad = (message: string) => new BadReviewError(`AdmissionReview: ${message}`, uid);
  if (!OPERATIONS.includes(request.operation as AdmissionOperation)) {
    throw bad(
      `request.operation must be one of ${OPERATIONS.join(', ')}, got ${JSON.stringify(request.operation)}`,
    );
  }
  const kind = request.kind;
  if (!isObject(kind) || typeof kind.kind !== 'string' || typeof kind.version !== 'string') {
    throw bad('request.kind must be an object with group, version and kind');
  }
  checkObjectField(request, 'object', uid);
  checkObjectField(request, 'oldObject', uid);
  const operation = request.operation as AdmissionOperation;
  if ((operation === 'CREATE' || operation === 'UPDATE') && !isObject(request.object)) {
    throw bad(`a ${operation} request must carry request.object`);
  }
  if (operation === 'UPDATE' && !isObject(request.oldObject))
    throw bad('an UPDATE request must carry request.oldObject');
  const normalize = (o: unknown) =>
    isObject(o) ? ({ ...o, metadata: o.metadata ?? {} } as KubeObject) : undefined;
  return {
    ...(request as unknown as AdmissionRequest),
    kind: { group: typeof kind.group === 'string' ? kind.group : '', version: kind.version, kind: kind.kind },
    userInfo: isObject(request.userInfo) ? (request.userInfo as UserInfo) : {},
    object: normalize(request.object),
    oldObject: normalize(request.oldObject),
  };
}

/** Reads a `ConversionReview` v1 body into its request, or throws {@link BadReviewError}. */
export function parseConversionReview(body: unknown): ConversionRequest {
  const request = checkEnvelope(body, 'ConversionReview', CONVERSION_API_VERSION);
  const uid = request.uid as string;
  if (typeof request.desiredAPIVersion !== 'string' || !request.desiredAPIVersion.includes('/')) {
    throw new BadReviewError('ConversionReview: request.desiredAPIVersion must be "group/version"', uid);
  }
  const objects = request.objects;
  if (!Array.isArray(objects) || !objects.every((o) => isObject(o) && typeof o.apiVersion === 'string')) {
    throw new BadReviewError(
      'ConversionReview: request.objects must be a list of objects with an apiVersion',
      uid,
    );
  }
  return { uid, desiredAPIVersion: request.desiredAPIVersion, objects: objects as KubeObject[] };
}

/** Wraps an admission response in its review envelope. */
export const admissionReview = (response: AdmissionResponse) => ({
  apiVersion: ADMISSION_API_VERSION,
  kind: 'AdmissionReview',
  response,
});

/** Wraps a conversion response in its review envelope. */
export const conversionReview = (response: ConversionResponse) => ({
  apiVersion: CONVERSION_API_VERSION,
  kind: 'ConversionReview',
  response,
});
