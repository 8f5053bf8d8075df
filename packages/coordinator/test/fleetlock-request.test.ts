/**
 * What a FleetLock request asks, decided before any cluster state is read: the refusals of path,
 * method and header in the protocol's order, the client params of any body, and answers whose
 * Content-Length is their body's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admit,
  endpointOf,
  FleetLockRefusal,
  OK_ANSWER,
  parseParams,
  prepareAnswer,
} from '../src/fleetlock-request.js';

const arbPath = fc.oneof(
  fc.constantFrom('/v1/pre-reboot', '/v1/steady-state', '/v1/pre-reboot/', '/v1', '/', '/V1/steady-state'),
  fc.webPath(),
);
const arbQuery = fc.option(
  fc.webQueryParameters().map((q) => `?${q}`),
  { nil: '' },
);
const arbMethod = fc.constantFrom('POST', 'GET', 'PUT', 'post', undefined);
const arbHeader = fc.oneof(
  fc.constantFrom('true', 'TRUE', 'True', 'false', '', undefined),
  fc.string(),
  fc.constant<string[]>(['true', 'true']),
);

describe('admitting a FleetLock request', () => {
  it('refuses a path, then a method, then a missing header, and else names the endpoint', () => {
    fc.assert(
      fc.property(arbPath, arbQuery, arbMethod, arbHeader, (path, query, method, header) => {
        const url = `${path}${query}`;
        const decided = admit(url, method, header);
        const endpoint =
          path === '/v1/pre-reboot' ? 'pre-reboot' : path === '/v1/steady-state' ? 'steady-state' : undefined;
        expect(endpointOf(url)).toBe(endpoint);
        if (endpoint === undefined) {
          expect(decided).toMatchObject({ refusal: { status: 404, body: { kind: 'failed_not_found' } } });
          expect('refusal' in decided && decided.refusal.body.value).toBe(`no such endpoint ${path}`);
        } else if (method !== 'POST') {
          expect(decided).toMatchObject({ refusal: { status: 405, body: { kind: 'failed_method' } } });
        } else if (typeof header !== 'string' || header.toLowerCase() !== 'true') {
          expect(decided).toMatchObject({
            refusal: { status: 400, body: { kind: 'failed_missing_header' } },
          });
        } else {
          expect(decided).toEqual({ endpoint });
        }
      }),
      { numRuns: 500 },
    );
  });

  it('has no endpoint without a URL', () => {
    expect(endpointOf(undefined)).toBeUndefined();
    expect(admit(undefined, 'POST', 'true')).toMatchObject({ refusal: { status: 404 } });
  });
});

/** What a body may hold where FleetLock expects a string: anything JSON can say. */
const arbValue = fc.oneof(fc.string(), fc.constant(undefined), fc.jsonValue());
const arbGroup = fc.oneof(fc.stringMatching(/^[a-zA-Z0-9.-]+$/), arbValue);

describe('the client params of a body', () => {
  it('are the id and group when both are valid, and otherwise the refusal the protocol names', () => {
    fc.assert(
      fc.property(arbValue, arbGroup, fc.boolean(), fc.boolean(), (id, group, lenient, wrap) => {
        const params: Record<string, unknown> = {};
        if (id !== undefined) params.id = id;
        if (group !== undefined) params.group = group;
        const text = JSON.stringify(wrap ? { client_params: params } : params);
        const given = wrap ? params : {};
        let outcome: { id: string; group: string } | FleetLockRefusal;
        try {
          outcome = parseParams(text, lenient);
        } catch (err) {
          expect(err).toBeInstanceOf(FleetLockRefusal);
          outcome = err as FleetLockRefusal;
        }
        const effectiveGroup = given.group ?? 'default';
        if (given.group === undefined && !lenient) {
          expect(outcome).toMatchObject({ status: 400, body: { kind: 'failed_missing_group' } });
        } else if (typeof given.id !== 'string' || given.id.trim() === '') {
          expect(outcome).toMatchObject({ status: 400, body: { kind: 'failed_bad_request' } });
          expect((outcome as FleetLockRefusal).body.value).toContain('client_params.id');
        } else if (typeof effectiveGroup !== 'string' || !/^[a-zA-Z0-9.-]+$/.test(effectiveGroup)) {
          expect(outcome).toMatchObject({ status: 400, body: { kind: 'failed_bad_request' } });
          expect((outcome as FleetLockRefusal).body.value).toContain('client_params.group');
        } else {
          expect(outcome).toEqual({ id: given.id, group: effectiveGroup });
        }
      }),
      { numRuns: 500 },
    );
  });

  it('are refused as bad JSON when the body is not JSON', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        fc.pre(!valid);
        expect(() => parseParams(text, true)).toThrow('failed_bad_request: body is not JSON');
      }),
    );
  });
});

describe('a prepared answer', () => {
  it('carries its JSON body with the Content-Length of its UTF-8 bytes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 599 }),
        fc.record({ kind: fc.string(), value: fc.string({ unit: 'binary' }) }),
        fc.boolean(),
        (status, body, close) => {
          const answer = prepareAnswer(status, body, close);
          const headers = new Map<string, string>();
          for (let i = 0; i < answer.headers.length; i += 2)
            headers.set(answer.headers[i] as string, answer.headers[i + 1] as string);
          expect(answer.status).toBe(status);
          expect(JSON.parse(answer.body)).toEqual(body);
          expect(headers.get('content-type')).toBe('application/json');
          expect(Number(headers.get('content-length'))).toBe(Buffer.byteLength(answer.body, 'utf8'));
          expect(headers.get('connection')).toBe(close ? 'close' : undefined);
        },
      ),
    );
    expect(OK_ANSWER).toEqual(prepareAnswer(200, {}));
  });
});
