import { describe, expect, it } from 'vitest';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  isTooManyRequests,
} from '../../src/api/errors.js';
import { errorFromResponse, parseRetryAfter } from '../../src/transport/response-error.js';

const status = (code: number, reason: string, message: string, extra: object = {}) =>
  JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    reason,
    message,
    ...extra,
  });

describe('errorFromResponse', () => {
  it('keeps the server Status: reason, message, details', () => {
    const err = errorFromResponse(
      404,
      status(404, 'NotFound', 'configmaps "x" not found', { details: { name: 'x', kind: 'configmaps' } }),
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe(404);
    expect(err.reason).toBe('NotFound');
    expect(err.message).toBe('configmaps "x" not found');
    expect(err.status.details).toEqual({ name: 'x', kind: 'configmaps' });
    expect(isNotFound(err)).toBe(true);
  });

  it('tells a Conflict from an AlreadyExists, both 409', () => {
    const conflict = errorFromResponse(409, status(409, 'Conflict', 'the object has been modified'));
    const exists = errorFromResponse(409, status(409, 'AlreadyExists', 'configmaps "a" already exists'));
    expect([isConflict(conflict), isAlreadyExists(conflict)]).toEqual([true, false]);
    expect([isConflict(exists), isAlreadyExists(exists)]).toEqual([false, true]);
  });

  it('synthesizes a Status when the body is not JSON, with a reason from the code', () => {
    const err = errorFromResponse(503, '<html>upstream unavailable</html>');
    expect(err.code).toBe(503);
    expect(err.reason).toBe('ServiceUnavailable');
    expect(err.message).toBe('HTTP 503: <html>upstream unavailable</html>');
    expect(err.status.status).toBe('Failure');
  });

  it('synthesizes a Status for an empty body and for JSON that is not a Status', () => {
    expect(errorFromResponse(410, '').reason).toBe('Expired');
    expect(isGone(errorFromResponse(410, ''))).toBe(true);
    const err = errorFromResponse(500, '{"error":"boom"}');
    expect(err.reason).toBe('InternalError');
    expect(err.message).toContain('boom');
  });

  it('uses the HTTP code when the Status has none', () => {
    const err = errorFromResponse(422, JSON.stringify({ kind: 'Status', reason: 'Invalid', message: 'bad' }));
    expect(err.code).toBe(422);
    expect(err.reason).toBe('Invalid');
  });

  it('reads Retry-After into retryAfterSeconds, over the Status details', () => {
    const body = status(429, 'TooManyRequests', 'Cannot evict pod', { details: { retryAfterSeconds: 10 } });
    expect(errorFromResponse(429, body, '3').retryAfterSeconds).toBe(3);
    expect(errorFromResponse(429, body).retryAfterSeconds).toBe(10);
    expect(isTooManyRequests(errorFromResponse(429, body))).toBe(true);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 120 ', now)).toBe(120);
  });
  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
  });
  it('is undefined when absent or unreadable', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});
