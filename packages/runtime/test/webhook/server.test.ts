import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebhookServingCert } from '@capstan/envtest';
import { AdmissionDenied, defineResource, type KubeObject } from '@capstan/runtime';
import { MetricsRegistry } from '@capstan/runtime/manager';
import { eventually, jsonPatch } from '@capstan/runtime/testing';
import { type AdmissionVerdict, WebhookServer, webhookMetrics } from '@capstan/runtime/webhook';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionBody, post, servedFingerprint } from './https-client.js';

interface Widget extends KubeObject {
  spec: { size?: number; color?: string };
}
const Widget = defineResource<Widget>({
  group: 'test.capstan.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});
const widgetKind = { group: 'test.capstan.dev', version: 'v1', kind: 'Widget' };
const resource = { group: 'test.capstan.dev', version: 'v1', resource: 'widgets' };

let cert: WebhookServingCert;
let server: WebhookServer;
let port: number;
const metrics = new MetricsRegistry();

beforeAll(async () => {
  cert = await WebhookServingCert.create();
  server = new WebhookServer({
    port: 0,
    host: '127.0.0.1',
    certDir: cert.certDir,
    certPollIntervalMs: 200,
    metrics: webhookMetrics(metrics.registry),
  });
  server.addDefaulter(Widget, {
    default(w) {
      w.spec.size ??= 3;
      return w;
    },
  });
  server.addValidator(Widget, {
    validateCreate(w) {
      if ((w.spec.size ?? 0) > 10)
        throw new AdmissionDenied('too big', {
          causes: [{ field: 'spec.size', message: 'must be at most 10' }],
        });
      return w.spec.color ? undefined : ['no color: widgets look grey'];
    },
  });
  server.addAdmission('/throws', () => {
    throw new Error('boom');
  });
  server.addAdmission('/forgetful', () => undefined as unknown as AdmissionVerdict);
  server.addAdmission(
    '/slow',
    (_req, { signal }) =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve({ allowed: true }))),
    { timeoutMs: 100 },
  );
  port = await server.start();
});
afterAll(async () => {
  await server.stop();
  cert.remove();
});

const create = (object: unknown) =>
  admissionBody({ kind: widgetKind, resource, operation: 'CREATE', object });

describe('the webhook server', () => {
  it('answers a defaulter with the JSON patch from the sent object to the defaulted one', async () => {
    const sent = {
      apiVersion: 'test.capstan.dev/v1',
      kind: 'Widget',
      metadata: { name: 'a' },
      spec: { color: 'red' },
    };
    const reply = await post(port, '/mutate-test-capstan-dev-v1-widget', create(sent), { ca: cert.caPem });
    expect(reply.status).toBe(200);
    expect(reply.body.response).toMatchObject({ uid: 'uid-1', allowed: true, patchType: 'JSONPatch' });
    const patch = JSON.parse(Buffer.from(reply.body.response.patch, 'base64').toString());
    expect(jsonPatch(sent, patch)).toEqual({ ...sent, spec: { color: 'red', size: 3 } });
  });

  it('denies with the reason and field path, and allows with warnings', async () => {
    const big = await post(
      port,
      '/validate-test-capstan-dev-v1-widget',
      create({ metadata: { name: 'b' }, spec: { size: 11, color: 'x' } }),
      { ca: cert.caPem },
    );
    expect(big.body.response).toMatchObject({
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message: 'too big',
        details: { causes: [{ field: 'spec.size', message: 'must be at most 10' }] },
      },
    });
    const grey = await post(
      port,
      '/validate-test-capstan-dev-v1-widget',
      create({ metadata: { name: 'c' }, spec: { size: 1 } }),
      { ca: cert.caPem },
    );
    expect(grey.body.response).toEqual({
      uid: 'uid-1',
      allowed: true,
      warnings: ['no color: widgets look grey'],
    });
  });

  it.each([
    ['a body that is not JSON', '{"apiVersion":', 'application/json', /not JSON/],
    ['an empty body', '', 'application/json', /body is empty/],
    ['another content type', '{}', 'text/plain', /content type must be application\/json/],
    [
      'a review of another kind',
      { kind: 'ConversionReview', apiVersion: 'admission.k8s.io/v1', request: {} },
      'application/json',
      /kind must be AdmissionReview/,
    ],
    [
      'a v1beta1 review',
      { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1beta1', request: { uid: 'x' } },
      'application/json',
      /v1beta1.*not served/,
    ],
    [
      'a review without a uid',
      { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request: {} },
      'application/json',
      /request.uid/,
    ],
    [
      'an unknown operation',
      admissionBody({ kind: widgetKind, operation: 'PATCH' }),
      'application/json',
      /request.operation must be one of/,
    ],
    [
      'an UPDATE without oldObject',
      admissionBody({ kind: widgetKind, operation: 'UPDATE', object: { metadata: {} } }),
      'application/json',
      /oldObject/,
    ],
    ['a JSON array', '[1,2]', 'application/json', /must be a JSON AdmissionReview object/],
  ])('answers %s with 400 and says why', async (_what, body, contentType, message) => {
    const reply = await post(port, '/validate-test-capstan-dev-v1-widget', body, {
      ca: cert.caPem,
      contentType,
    });
    expect(reply.status).toBe(400);
    const text = reply.body.response?.status?.message ?? reply.body.message;
    expect(text).toMatch(message);
  });

  it('refuses, as a 400 denial, a review of a kind the typed handler does not serve', async () => {
    const body = admissionBody({
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource,
      operation: 'CREATE',
      object: { metadata: {} },
    });
    const reply = await post(port, '/validate-test-capstan-dev-v1-widget', body, { ca: cert.caPem });
    expect(reply.body.response).toMatchObject({
      allowed: false,
      status: {
        code: 400,
        message: expect.stringMatching(
          /serves test.capstan.dev\/v1, Kind=Widget, not apps\/v1, Kind=Deployment/,
        ),
      },
    });
  });

  it('lets a request in flight finish when it stops', async () => {
    const late = new WebhookServer({ port: 0, host: '127.0.0.1', certDir: cert.certDir });
    let release: () => void = () => {};
    const entered = new Promise<void>((resolve) => {
      late.addAdmission('/hold', () => {
        resolve();
        return new Promise((done) => {
          release = () => done({ allowed: true });
        });
      });
    });
    const latePort = await late.start();
    const reply = post(latePort, '/hold', create({ metadata: {} }), { ca: cert.caPem });
    await entered;
    const stopped = late.stop();
    release();
    expect((await reply).body.response).toMatchObject({ allowed: true });
    await stopped;
    await expect(post(latePort, '/hold', create({ metadata: {} }), { ca: cert.caPem })).rejects.toThrow(
      /ECONNREFUSED/,
    );
  });

  it('answers 404 for an unknown path and 405 for GET', async () => {
    expect((await post(port, '/nothing', {}, { ca: cert.caPem })).status).toBe(404);
    expect((await post(port, '/throws', '', { ca: cert.caPem, method: 'GET' })).status).toBe(405);
  });

  it('turns a handler that throws into a denial and counts it as a panic', async () => {
    const reply = await post(port, '/throws', create({ metadata: {} }), { ca: cert.caPem });
    expect(reply.body.response).toMatchObject({
      allowed: false,
      status: { code: 500, message: expect.stringContaining('boom') },
    });
    expect(await metrics.text()).toMatch(/^controller_runtime_webhook_panics_total [1-9]/m);
  });

  it('denies, saying so, when a raw handler answers no verdict', async () => {
    const reply = await post(port, '/forgetful', create({ metadata: {} }), { ca: cert.caPem });
    expect(reply.body.response).toMatchObject({
      allowed: false,
      status: { code: 500, message: expect.stringContaining('not a verdict with "allowed"') },
    });
  });

  it('denies with 504 when a handler outlives its timeout, aborting it', async () => {
    const reply = await post(port, '/slow', create({ metadata: {} }), { ca: cert.caPem });
    expect(reply.body.response).toMatchObject({ allowed: false, status: { code: 504, reason: 'Timeout' } });
  });

  it("counts requests by path and code under controller-runtime's names", async () => {
    const text = await metrics.text();
    expect(text).toMatch(
      /^controller_runtime_webhook_requests_total\{webhook="\/mutate-test-capstan-dev-v1-widget",code="200"\} [1-9]/m,
    );
    expect(text).toMatch(
      /^controller_runtime_webhook_requests_total\{webhook="\/validate-test-capstan-dev-v1-widget",code="400"\} 9/m,
    );
    expect(text).toMatch(/^controller_runtime_webhook_latency_seconds_count\{webhook="\/slow"\} 1/m);
    expect(text).toMatch(/^controller_runtime_webhook_requests_in_flight\{webhook="\/slow"\} 0/m);
  });

  it('passes its readiness check once it serves TLS', async () => {
    await expect(server.checkStarted()).resolves.toBe(true);
  });

  it('serves a rotated certificate without a restart, and keeps the old one while a pair is broken', async () => {
    const before = await servedFingerprint(port);
    await cert.replaceAuthority();
    await cert.rotate();
    const expected = new X509Certificate(readFileSync(join(cert.certDir, 'tls.crt'))).fingerprint256;
    expect(expected).not.toBe(before);
    await eventually(async () => (await servedFingerprint(port)) === expected, {
      what: 'the new certificate served',
    });
    // Verified against the new CA only: the server really presents the rotated chain.
    expect(
      (
        await post(port, '/mutate-test-capstan-dev-v1-widget', create({ metadata: {}, spec: {} }), {
          ca: cert.caPem,
        })
      ).status,
    ).toBe(200);

    writeFileSync(join(cert.certDir, 'tls.key'), 'not a key');
    expect(server.certificate.reload()).toBe(false);
    expect(await servedFingerprint(port)).toBe(expected);
  });
});
