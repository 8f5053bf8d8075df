import { BadReviewError, parseAdmissionReview, parseConversionReview } from '@capstan/runtime/webhook';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const outcome = (parse: (body: unknown) => unknown, body: unknown) => {
  try {
    parse(body);
    return 'parsed';
  } catch (err) {
    return err instanceof BadReviewError && err.message.length > 0 ? 'refused' : err;
  }
};

// Bodies near a real review, so the checks past the envelope are exercised too.
const nearAdmission = fc.record({
  apiVersion: fc.constantFrom('admission.k8s.io/v1', 'admission.k8s.io/v1beta1', 1),
  kind: fc.constantFrom('AdmissionReview', 'ConversionReview'),
  request: fc.oneof(
    fc.anything(),
    fc.record(
      {
        uid: fc.oneof(fc.constant('u'), fc.anything()),
        operation: fc.oneof(fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 'CONNECT'), fc.anything()),
        kind: fc.oneof(fc.constant({ group: 'g', version: 'v1', kind: 'K' }), fc.anything()),
        object: fc.oneof(fc.constant({ metadata: {} }), fc.anything()),
        oldObject: fc.oneof(fc.constant({ metadata: {} }), fc.anything()),
        userInfo: fc.anything(),
      },
      { requiredKeys: [] },
    ),
  ),
});
const nearConversion = fc.record({
  apiVersion: fc.constantFrom('apiextensions.k8s.io/v1', 'x'),
  kind: fc.constant('ConversionReview'),
  request: fc.oneof(
    fc.anything(),
    fc.record({
      uid: fc.oneof(fc.constant('u'), fc.anything()),
      desiredAPIVersion: fc.oneof(fc.constant('g/v1'), fc.anything()),
      objects: fc.oneof(fc.constant([{ apiVersion: 'g/v1', kind: 'K', metadata: {} }]), fc.anything()),
    }),
  ),
});

describe('reading review bodies', () => {
  it('either parses or refuses with a BadReviewError, whatever the body', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.jsonValue(), nearAdmission), (body) => {
        expect(['parsed', 'refused']).toContain(outcome(parseAdmissionReview, body));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.oneof(fc.anything(), nearConversion), (body) => {
        expect(['parsed', 'refused']).toContain(outcome(parseConversionReview, body));
      }),
      { numRuns: 1000 },
    );
  });

  it('parses a well-formed review, and every parsed request has what a handler relies on', () => {
    fc.assert(
      fc.property(nearAdmission, (body) => {
        if (outcome(parseAdmissionReview, body) !== 'parsed') return;
        const request = parseAdmissionReview(body);
        expect(request.uid).toEqual(expect.any(String));
        expect(request.userInfo).toEqual(expect.any(Object));
        if (request.operation === 'CREATE' || request.operation === 'UPDATE')
          expect(request.object?.metadata).toBeDefined();
        if (request.operation === 'UPDATE') expect(request.oldObject?.metadata).toBeDefined();
      }),
    );
  });

  it('keeps the uid of a request it refuses, so the answer can name it', () => {
    const body = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'abc', operation: 'NOPE' },
    };
    expect(() => parseAdmissionReview(body)).toThrow(expect.objectContaining({ uid: 'abc' }));
  });
});
