import { defineResource } from '@capstan/runtime';
import { WebhookServer } from '@capstan/runtime/webhook';
import { describe, expect, it } from 'vitest';

const Pod = defineResource({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true });
const Gizmo = defineResource({
  group: 'x.dev',
  version: 'v2',
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
});

describe('webhook configurations written from the registrations', () => {
  it('give each typed webhook its rules, failure policy and timeout, and skip raw handlers', () => {
    const server = new WebhookServer();
    server.addDefaulter(Gizmo, { default: (g) => g });
    server.addValidator(Gizmo, {}, { failurePolicy: 'Ignore', timeoutSeconds: 3, operations: ['DELETE'] });
    server.addValidator(Pod, {});
    server.addAdmission('/raw', () => ({ allowed: true }));
    const [mutating, validating, ...rest] = server.configurations({
      service: { name: 'svc', namespace: 'ops', port: 8443 },
    });
    expect(rest).toEqual([]);
    expect(mutating).toMatchObject({
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'mutating-webhook-configuration' },
    });
    expect(mutating?.webhooks).toEqual([
      {
        name: 'mgizmo.x.dev',
        clientConfig: {
          service: { name: 'svc', namespace: 'ops', port: 8443, path: '/mutate-x-dev-v2-gizmo' },
        },
        rules: [
          {
            apiGroups: ['x.dev'],
            apiVersions: ['v2'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['gizmos'],
          },
        ],
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ]);
    expect(
      validating?.webhooks.map((w) => [
        w.name,
        w.failurePolicy,
        w.timeoutSeconds,
        (w.rules as Array<{ operations: string[] }>)[0]?.operations,
      ]),
    ).toEqual([
      ['vgizmo.x.dev', 'Ignore', 3, ['DELETE']],
      ['vpod.kb.io', 'Fail', 10, ['CREATE', 'UPDATE', 'DELETE']],
    ]);
  });

  it('are empty without typed webhooks', () => {
    const server = new WebhookServer();
    server.addAdmission('/raw', () => ({ allowed: true }));
    expect(server.configurations({ service: { name: 's', namespace: 'n' } })).toEqual([]);
  });
});
