/**
 * One review in, one answer out: the admission and conversion endpoints between the HTTP server
 * and the handlers. Bad reviews become 400s; denials, handler exceptions and timeouts become
 * answers the API server understands (HTTP 200 with `allowed: false` or a `Failure` result).
 */
import type { ApiStatus } from '../api/types.js';
import type { Logger } from '../log/logger.js';
import type { AdmissionHandler, AdmissionVerdict } from './admission.js';
import { ConversionError, type ConversionRegistry } from './conversion.js';
import { AdmissionDenied } from './denial.js';
import {
  type AdmissionResponse,
  admissionReview,
  BadReviewError,
  conversionReview,
  parseAdmissionReview,
  parseConversionReview,
} from './review.js';

/** An HTTP status and the JSON to send. */
export interface Answer {
  code: number;
  body: unknown;
}

/** What an endpoint needs from the server. */
export interface EndpointContext {
  path: string;
  timeoutMs: number;
  logger?: Logger;
  panicked(): void;
}

class HandlerTimeout extends Error {}

/** Runs `work` with an abort signal that fires, and a rejection, after `timeoutMs`. */
async function withTimeout<T>(timeoutMs: number, work: (signal: AbortSignal) => T | Promise<T>): Promise<T> {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new HandlerTimeout(`the handler did not answer within ${timeoutMs} ms`);
      abort.abort(err);
      reject(err);
    }, timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => work(abort.signal)), expired]);
  } finally {
    clearTimeout(timer);
  }
}

const failure = (code: number, reason: string, message: string): ApiStatus => ({
  status: 'Failure',
  code,
  reason,
  message,
});

function badReview(err: BadReviewError, wrap: (uid: string, message: string) => unknown): Answer {
  return { code: 400, body: wrap(err.uid ?? '', err.message) };
}

/** Serves one AdmissionReview with `handler`. */
export async function serveAdmission(
  body: unknown,
  handler: AdmissionHandler,
  ctx: EndpointContext,
): Promise<Answer> {
  let request: ReturnType<typeof parseAdmissionReview>;
  try {
    request = parseAdmissionReview(body);
  } catch (err) {
    if (!(err instanceof BadReviewError)) throw err;
    return badReview(err, (uid, message) =>
      admissionReview({ uid, allowed: false, status: failure(400, 'BadRequest', message) }),
    );
  }
  let verdict: AdmissionVerdict;
  try {
    verdict = await withTimeout(ctx.timeoutMs, (signal) => handler(request, { request, signal }));
    if (typeof verdict?.allowed !== 'boolean') {
      throw new Error(`the handler answered ${JSON.stringify(verdict)}, not a verdict with "allowed"`);
    }
  } catch (err) {
    verdict = deniedFor(err, ctx);
  }
  const response: AdmissionResponse = { uid: request.uid, allowed: verdict.allowed };
  if (!verdict.allowed) response.status = verdict.status ?? failure(403, 'Forbidden', 'denied');
  if (verdict.allowed && verdict.patch?.length) {
    response.patchType = 'JSONPatch';
    response.patch = Buffer.from(JSON.stringify(verdict.patch)).toString('base64');
  }
  if (verdict.warnings?.length) response.warnings = verdict.warnings;
  if (verdict.auditAnnotations) response.auditAnnotations = verdict.auditAnnotations;
  return { code: 200, body: admissionReview(response) };
}

/** A denial, a timeout or a handler's exception, as a verdict. */
function deniedFor(err: unknown, ctx: EndpointContext): AdmissionVerdict {
  if (err instanceof AdmissionDenied)
    return { allowed: false, status: err.toStatus(), warnings: err.warnings };
  if (err instanceof HandlerTimeout) {
    ctx.logger?.warn({ path: ctx.path, timeoutMs: ctx.timeoutMs }, 'admission handler timed out');
    return { allowed: false, status: failure(504, 'Timeout', `webhook ${ctx.path}: ${err.message}`) };
  }
  ctx.panicked();
  ctx.logger?.error({ err, path: ctx.path }, 'admission handler threw');
  return {
    allowed: false,
    status: failure(
      500,
      'InternalError',
      `webhook ${ctx.path} failed: ${(err as Error)?.message ?? String(err)}`,
    ),
  };
}

/** Serves one ConversionReview from `registry`. */
export async function serveConversion(
  body: unknown,
  registry: ConversionRegistry,
  ctx: EndpointContext,
): Promise<Answer> {
  let request: ReturnType<typeof parseConversionReview>;
  try {
    request = parseConversionReview(body);
  } catch (err) {
    if (!(err instanceof BadReviewError)) throw err;
    return badReview(err, (uid, message) =>
      conversionReview({ uid, convertedObjects: [], result: { status: 'Failure', message } }),
    );
  }
  try {
    const convertedObjects = await withTimeout(ctx.timeoutMs, () =>
      registry.convertAll(request.objects, request.desiredAPIVersion),
    );
    return {
      code: 200,
      body: conversionReview({ uid: request.uid, convertedObjects, result: { status: 'Success' } }),
    };
  } catch (err) {
    if (!(err instanceof ConversionError) && !(err instanceof HandlerTimeout)) {
      ctx.panicked();
      ctx.logger?.error({ err, path: ctx.path }, 'conversion threw');
    }
    const message = `conversion to ${request.desiredAPIVersion} failed: ${(err as Error)?.message ?? String(err)}`;
    return {
      code: 200,
      body: conversionReview({
        uid: request.uid,
        convertedObjects: [],
        result: { status: 'Failure', message },
      }),
    };
  }
}
