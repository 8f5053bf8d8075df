import { describe, expect, it } from 'vitest';
import { defineResource } from '../../src/api/types.js';
import { ConfigMap, CustomResourceDefinition, Deployment, Namespace, Pod } from '../../src/client/builtin.js';
import {
  deleteBody,
  listQuery,
  patchContentType,
  queryString,
  resourcePath,
  watchQuery,
  writeQuery,
} from '../../src/transport/rest-request.js';

const Widget = defineResource({
  group: 'example.dev',
  version: 'v1alpha1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

describe('resourcePath', () => {
  it('puts core kinds under /api/v1 and others under /apis/{group}/{version}', () => {
    expect(resourcePath(ConfigMap, { namespace: 'ns', name: 'a' })).toBe(
      '/api/v1/namespaces/ns/configmaps/a',
    );
    expect(resourcePath(Deployment, { namespace: 'ns', name: 'd' })).toBe(
      '/apis/apps/v1/namespaces/ns/deployments/d',
    );
    expect(resourcePath(Widget, { namespace: 'ns' })).toBe(
      '/apis/example.dev/v1alpha1/namespaces/ns/widgets',
    );
  });

  it('addresses cluster-scoped kinds without a namespace segment, ignoring a namespace given', () => {
    expect(resourcePath(Namespace, { name: 'kube-system' })).toBe('/api/v1/namespaces/kube-system');
    expect(
      resourcePath(CustomResourceDefinition, { namespace: 'ignored', name: 'widgets.example.dev' }),
    ).toBe('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.dev');
    expect(resourcePath(Namespace)).toBe('/api/v1/namespaces');
  });

  it('addresses a namespaced collection across all namespaces when no namespace is given', () => {
    expect(resourcePath(Pod)).toBe('/api/v1/pods');
    expect(resourcePath(Deployment, {})).toBe('/apis/apps/v1/deployments');
  });

  it('appends a subresource after the name', () => {
    expect(resourcePath(Pod, { namespace: 'ns', name: 'p', subresource: 'eviction' })).toBe(
      '/api/v1/namespaces/ns/pods/p/eviction',
    );
    expect(resourcePath(Widget, { namespace: 'ns', name: 'w', subresource: 'status' })).toBe(
      '/apis/example.dev/v1alpha1/namespaces/ns/widgets/w/status',
    );
  });

  it('percent-encodes names and namespaces', () => {
    expect(resourcePath(ConfigMap, { namespace: 'n s', name: 'a/b' })).toBe(
      '/api/v1/namespaces/n%20s/configmaps/a%2Fb',
    );
  });

  it('refuses to address an object of a namespaced kind without its namespace', () => {
    expect(() => resourcePath(ConfigMap, { name: 'a' })).toThrow(/namespace is required/);
  });

  it('refuses a subresource without a name, and an empty name', () => {
    expect(() => resourcePath(Pod, { namespace: 'ns', subresource: 'status' })).toThrow(/needs a name/);
    expect(() => resourcePath(Pod, { namespace: 'ns', name: '' })).toThrow(/empty name/);
  });
});

describe('query strings', () => {
  it('leaves out undefined values and encodes the rest', () => {
    expect(queryString({})).toBe('');
    expect(queryString({ a: undefined })).toBe('');
    expect(queryString({ labelSelector: 'app=web,tier in (a,b)', limit: 5 })).toBe(
      '?labelSelector=app%3Dweb%2Ctier+in+%28a%2Cb%29&limit=5',
    );
  });

  it('builds list queries', () => {
    expect(
      queryString(listQuery({ namespace: 'ns', labelSelector: 'a=b', limit: 10, continue: 'tok' })),
    ).toBe('?labelSelector=a%3Db&limit=10&continue=tok');
    expect(queryString(listQuery({ resourceVersion: '0' }))).toBe('?resourceVersion=0');
  });

  it('builds watch queries with watch=1 and bookmarks', () => {
    const q = new URLSearchParams(
      queryString(
        watchQuery({ resourceVersion: '42', allowWatchBookmarks: true, timeoutSeconds: 300 }),
      ).slice(1),
    );
    expect(Object.fromEntries(q)).toEqual({
      watch: '1',
      resourceVersion: '42',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '300',
    });
  });

  it('builds write queries: fieldManager, dryRun=All, force', () => {
    expect(queryString(writeQuery({ fieldManager: 'me', dryRun: true, force: true }))).toBe(
      '?fieldManager=me&dryRun=All&force=true',
    );
    expect(queryString(writeQuery({}))).toBe('');
  });
});

describe('patchContentType', () => {
  it('maps each patch type to the Content-Type the server expects', () => {
    expect(patchContentType('merge')).toBe('application/merge-patch+json');
    expect(patchContentType('json')).toBe('application/json-patch+json');
    expect(patchContentType('strategic')).toBe('application/strategic-merge-patch+json');
    expect(patchContentType('apply')).toBe('application/apply-patch+yaml');
  });
});

describe('deleteBody', () => {
  it('is a DeleteOptions object with only the options given', () => {
    expect(deleteBody()).toEqual({ kind: 'DeleteOptions', apiVersion: 'v1' });
    expect(
      deleteBody({
        propagationPolicy: 'Foreground',
        gracePeriodSeconds: 0,
        preconditions: { uid: 'u1', resourceVersion: '7' },
        dryRun: true,
      }),
    ).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u1', resourceVersion: '7' },
      dryRun: ['All'],
    });
  });
});
