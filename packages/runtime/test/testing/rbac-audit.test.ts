import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import type { Permission } from '../../src/controller/index.js';
import { EVENTS_PERMISSION } from '../../src/manager/index.js';
import { type AuditedRequest, auditRbac, FakeCluster, recordingTransport } from '../../src/testing/index.js';
import type { ApiTransport } from '../../src/transport/transport.js';
import { ConfigMap, Widget } from '../testing/fixtures.js';

describe('recordingTransport', () => {
  it('records verb, resource, namespace and name, and marks a 403', async () => {
    const cluster = new FakeCluster({ kinds: [ConfigMap, Widget] });
    const refusing: ApiTransport = new Proxy(cluster, {
      get: (target, prop, receiver) =>
        prop === 'delete'
          ? () => Promise.reject(new ApiError({ code: 403, reason: 'Forbidden', message: 'no' }))
          : Reflect.get(target, prop, receiver),
    });
    const { transport, requests } = recordingTransport(refusing);
    const key = { namespace: 'ns', name: 'a' };
    await transport.create(ConfigMap, { metadata: key });
    await transport.patch(ConfigMap, key, 'merge', { data: { x: '1' } });
    await transport.patch(
      ConfigMap,
      { namespace: 'ns', name: 'b' },
      'apply',
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'ns', name: 'b' },
      },
      { fieldManager: 'me' },
    );
    await transport.list(ConfigMap, { namespace: 'ns' });
    await expect(transport.delete(ConfigMap, key)).rejects.toThrow('no');
    expect(requests).toEqual([
      { verb: 'create', group: '', resource: 'configmaps', namespace: 'ns' },
      { verb: 'patch', group: '', resource: 'configmaps', namespace: 'ns', name: 'a' },
      { verb: 'patch', group: '', resource: 'configmaps', namespace: 'ns', name: 'b', apply: true },
      { verb: 'list', group: '', resource: 'configmaps', namespace: 'ns' },
      { verb: 'delete', group: '', resource: 'configmaps', namespace: 'ns', name: 'a', refused: 403 },
    ]);
  });
});

describe('auditRbac', () => {
  const rules: Permission[] = [
    { group: '', resource: 'configmaps', verbs: ['list', 'watch', 'create', 'delete'] },
    {
      group: 'coordination.k8s.io',
      resource: 'leases',
      verbs: ['get', 'update'],
      namespace: 'ops',
      resourceNames: ['me'],
    },
  ];
  const request = (r: Partial<AuditedRequest>): AuditedRequest => ({
    verb: 'get',
    group: '',
    resource: 'configmaps',
    ...r,
  });

  it('reports refusals as missing and verbs no request used, a watch covering its list', () => {
    const audit = auditRbac(rules, [
      request({ verb: 'watch' }),
      request({ verb: 'create', namespace: 'x' }),
      request({ verb: 'patch', refused: 403 }),
      // Another Lease, or another namespace: not what the rule grants.
      request({
        verb: 'get',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: 'ops',
        name: 'other',
      }),
      request({
        verb: 'update',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: 'dev',
        name: 'me',
      }),
    ]);
    expect(audit.missing).toEqual([request({ verb: 'patch', refused: 403 })]);
    expect(audit.unused.map((u) => `${u.verb} ${u.permission.resource}`)).toEqual([
      'delete configmaps',
      'get leases',
      'update leases',
    ]);
  });

  it('passes over justified grants, by resource or group/resource', () => {
    const audit = auditRbac(rules, [], {
      'list configmaps': 'why',
      'watch configmaps': 'why',
      'create configmaps': 'why',
      'delete configmaps': 'why',
      'get coordination.k8s.io/leases': 'why',
    });
    expect(audit.unused.map((u) => `${u.verb} ${u.permission.resource}`)).toEqual(['update leases']);
  });

  it('counts a granted apply as the create the API server asks of it, not a merge patch or a refused or status apply', () => {
    const creates: Permission[] = [
      { group: '', resource: 'configmaps', verbs: ['create', 'patch'] },
      { group: '', resource: 'secrets', verbs: ['create', 'patch'] },
      { group: 'apps', resource: 'deployments', verbs: ['create'] },
      { group: 'apps', resource: 'deployments/status', verbs: ['create', 'patch'] },
    ];
    const audit = auditRbac(creates, [
      request({ verb: 'patch', resource: 'configmaps', apply: true }),
      request({ verb: 'patch', resource: 'secrets' }),
      request({ verb: 'patch', group: 'apps', resource: 'deployments', apply: true, refused: 403 }),
      request({ verb: 'patch', group: 'apps', resource: 'deployments/status', apply: true }),
    ]);
    expect(audit.unused.map((u) => `${u.verb} ${u.permission.resource}`)).toEqual([
      'create secrets',
      'create deployments',
      'create deployments/status',
    ]);
  });

  it("knows the manager's events grant: its patch may stay unused, its create may not", () => {
    const audit = auditRbac([EVENTS_PERMISSION], []);
    expect(audit.unused.map((u) => `${u.verb} ${u.permission.group}/${u.permission.resource}`)).toEqual([
      'create events.k8s.io/events',
    ]);
  });
});
