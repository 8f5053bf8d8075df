/**
 * Turning a non-2xx HTTP answer into an {@link ApiError}: the server's Status body when it sent one,
 * a synthesized Status otherwise (proxies and load balancers answer with HTML or plain text).
 */
import { ApiError } from '../api/errors.js';
import type { ApiStatus } from '../api/types.js';
import type { Answer } from './http1/response-parser.js';
import { errorBodyText } from './protobuf/response-body.js';

/**
 * Builds the ApiError of a non-2xx answer.
 * @param code HTTP status code.
 * @param body The response body as text (may be empty, JSON or anything else).
 * @param retryAfter The `Retry-After` header, if any.
 * @param now Milliseconds since the epoch, to read a `Retry-After` given as a date.
 */
export function errorFromResponse(
  code: number,
  body: string,
  retryAfter?: string,
  now = Date.now(),
): ApiError {
  const parsed = parseStatus(body);
  const status: ApiStatus = parsed
    ? { ...parsed, code: parsed.code || code }
    : {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code,
        message: body.trim() === '' ? `HTTP ${code}` : `HTTP ${code}: ${truncate(body.trim(), 512)}`,
      };
  return new ApiError(status, parseRetryAfter(retryAfter, now));
}

/**
 * Reads a `Retry-After` header: delay-seconds or an HTTP date; `undefined` when absent or unreadable.
 * A date in the past reads as 0.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP date names its month; without this, Date.parse reads '-5' as a year.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

function parseStatus(body: string): ApiStatus | undefined {
  if (body.trim() === '') return undefined;
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status') {
      return value as ApiStatus;
    }
  } catch {
    // Not JSON: the caller synthesizes a Status from the text.
  }
  return undefined;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The ApiError of a non-2xx answer read whole, its body read by its Content-Type. */
export function errorFromAnswer(answer: Answer, now?: number): ApiError {
  const text = errorBodyText(answer.body, answer.headers['content-type']);
  return errorFromResponse(answer.status, text, answer.headers['retry-after'], now);
}
