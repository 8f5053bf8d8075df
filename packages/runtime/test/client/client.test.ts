import { describe, expect, it } from 'vitest';
import { ApiError, apiError, isNotFound } from '../../src/api/errors.js';
import type { KubeObject, ListOptions, ListResult, ObjectKey, ResourceType } from '../../src/api/types.js';
import { ConfigMap, Lease, Namespace } from '../../src/client/builtin.js';
import type { CachedReader } from '../../src/client/cached-reader.js';
import { Client } from '../../src/client/client.js';
import type { ApiTransport, WatchHandle } from '../../src/transport/transport.js';

interface Call {
  verb: string;
  type: string;
  args: unknown[];
}

/** Records every call; answers from the functions a test sets. */
class RecordingTransport implements ApiTransport {
  calls: Call[] = [];
  listPage: (options: ListOptions) => ListResult = () => ({ items: [], resourceVersion: '1' });
  deleteResult: () => unknown = () => ({ kind: 'Status', status: 'Success' });

  private record(verb: string, type: ResourceType, ...args: unknown[]) {
    this.calls.push({ verb, type: type.kind, args });
  }
  async get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey): Promise<T> {
    this.record('get', type, key);
    return { metadata: { ...key, resourceVersion: 'server' } } as T;
  }
  async list<T extends KubeObject>(type: ResourceType<T>, options: ListOptions = {}): Promise<ListResult<T>> {
    this.record('list', type, options);
    return this.listPage(options) as ListResult<T>;
  }
  async watch(): Promise<WatchHandle> {
    throw new Error('not used');
  }
  async create<T extends KubeObject>(type: ResourceType<T>, object: T, options?: unknown): Promise<T> {
    this.record('create', type, object, options);
    return object;
  }
  async update<T extends KubeObject>(type: ResourceType<T>, object: T, options?: unknown): Promise<T> {
    this.record('update', type, object, options);
    return object;
  }
  async patch<T extends KubeObject>(type: ResourceType<T>, ...args: unknown[]): Promise<T> {
    this.record('patch', type, ...args);
    return { metadata: {} } as T;
  }
  async delete(type: ResourceType, key: ObjectKey, options?: unknown): Promise<unknown> {
    this.record('delete', type, key, options);
    return this.deleteResult();
  }
  async createSubresource(
    type: ResourceType,
    key: ObjectKey,
    subresource: string,
    body: unknown,
  ): Promise<unknown> {
    this.record('createSubresource', type, key, subresource, body);
    return {};
  }
}

const cm = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', labels },
});

/** A cache holding ConfigMaps only, with a tiny equality-only label matcher. */
function fakeCache(objects: KubeObject[]): CachedReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    isCached: (type) => type === ConfigMap,
    get<T extends KubeObject>(_type: ResourceType<T>, key: ObjectKey) {
      reads.push(`get ${key.namespace}/${key.name}`);
      return objects.find((o) => o.metadata.name === key.name && o.metadata.namespace === key.namespace) as
        | T
        | undefined;
    },
    list<T extends KubeObject>(
      _type: ResourceType<T>,
      options: { namespace?: string; labelSelector?: string },
    ) {
      reads.push(`list ${options.namespace ?? '*'} ${options.labelSelector ?? ''}`);
      const [k, v] = (options.labelSelector ?? '').split('=');
      return objects.filter(
        (o) =>
          (!options.namespace || o.metadata.namespace === options.namespace) &&
          (!k || o.metadata.labels?.[k] === v),
      ) as T[];
    },
  };
}

describe('Client reads', () => {
  it('reads a cached kind from the cache, and an uncached kind from the server', async () => {
    const transport = new RecordingTransport();
    const cache = fakeCache([cm('a')]);
    const client = new Client(transport, { cache });
    expect(await client.get(ConfigMap, { namespace: 'ns', name: 'a' })).toEqual(cm('a'));
    await client.get(Lease, { namespace: 'ns', name: 'l' });
    expect(cache.reads).toEqual(['get ns/a']);
    expect(transport.calls.map((c) => `${c.verb} ${c.type}`)).toEqual(['get Lease']);
  });

  it('answers a cache miss with the NotFound the server would send', async () => {
    const client = new Client(new RecordingTransport(), { cache: fakeCache([]) });
    const err = await client.get(ConfigMap, { namespace: 'ns', name: 'gone' }).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect((err as ApiError).reason).toBe('NotFound');
    expect((err as ApiError).message).toBe('configmaps "gone" not found');
    expect((err as ApiError).status.details).toEqual({ name: 'gone', group: '', kind: 'configmaps' });
  });

  it('bypasses the cache with { direct: true }', async () => {
    const transport = new RecordingTransport();
    const cache = fakeCache([cm('a')]);
    const client = new Client(transport, { cache });
    const got = await client.get(ConfigMap, { namespace: 'ns', name: 'a' }, { direct: true });
    expect(got.metadata.resourceVersion).toBe('server');
    await client.list(ConfigMap, { namespace: 'ns', direct: true });
    expect(cache.reads).toEqual([]);
    expect(transport.calls.map((c) => c.verb)).toEqual(['get', 'list']);
    expect(transport.calls[1]?.args[0]).not.toHaveProperty('direct');
  });

  it('lists a cached kind from the cache by namespace and label selector', async () => {
    const transport = new RecordingTransport();
    const client = new Client(transport, {
      cache: fakeCache([cm('a', { app: 'x' }), cm('b', { app: 'y' })]),
    });
    const result = await client.list(ConfigMap, { namespace: 'ns', labelSelector: 'app=x' });
    expect(result.items.map((o) => o.metadata.name)).toEqual(['a']);
    expect(transport.calls).toEqual([]);
  });

  it('lists from the server what a cache cannot answer: field selectors, pages, resourceVersions', async () => {
    const transport = new RecordingTransport();
    const client = new Client(transport, { cache: fakeCache([cm('a')]) });
    await client.list(ConfigMap, { fieldSelector: 'metadata.name=a' });
    await client.list(ConfigMap, { limit: 5 });
    await client.list(ConfigMap, { resourceVersion: '0' });
    expect(transport.calls.map((c) => c.verb)).toEqual(['list', 'list', 'list']);
  });

  it('follows continue tokens until the last page when no limit is given', async () => {
    const transport = new RecordingTransport();
    const pages: Record<string, ListResult> = {
      '': { items: [cm('a'), cm('b')], resourceVersion: '10', continue: 't1' },
      t1: { items: [cm('c'), cm('d')], resourceVersion: '10', continue: 't2' },
      t2: { items: [cm('e')], resourceVersion: '10' },
    };
    transport.listPage = (o) => pages[o.continue ?? ''] as ListResult;
    const client = new Client(transport, { pageSize: 2 });
    const result = await client.list(ConfigMap, {
      namespace: 'ns',
      labelSelector: 'app=x',
      resourceVersion: '5',
    });
    expect(result.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(result.resourceVersion).toBe('10');
    expect(result.continue).toBeUndefined();
    expect(transport.calls.map((c) => c.args[0])).toEqual([
      { namespace: 'ns', labelSelector: 'app=x', resourceVersion: '5', limit: 2 },
      // The server refuses a resourceVersion next to a continue token.
      { namespace: 'ns', labelSelector: 'app=x', limit: 2, continue: 't1' },
      { namespace: 'ns', labelSelector: 'app=x', limit: 2, continue: 't2' },
    ]);
  });

  it('lists again in one request when a continue token expires (410)', async () => {
    const transport = new RecordingTransport();
    transport.listPage = (o) => {
      if (o.continue) throw apiError(410, 'Expired', 'The provided continue parameter is too old');
      if (o.limit) return { items: [cm('a')], resourceVersion: '10', continue: 't1' };
      return { items: [cm('a'), cm('b'), cm('c')], resourceVersion: '20' };
    };
    const client = new Client(transport, { pageSize: 1 });
    const result = await client.list(ConfigMap, { namespace: 'ns' });
    expect(result).toEqual({ items: [cm('a'), cm('b'), cm('c')], resourceVersion: '20' });
    expect(transport.calls.map((c) => c.args[0])).toEqual([
      { namespace: 'ns', limit: 1 },
      { namespace: 'ns', limit: 1, continue: 't1' },
      { namespace: 'ns' },
    ]);
  });

  it('does not retry a 410 on the first page, nor other errors', async () => {
    const transport = new RecordingTransport();
    transport.listPage = () => {
      throw apiError(410, 'Expired', 'too old');
    };
    await expect(new Client(transport).list(ConfigMap)).rejects.toBeInstanceOf(ApiError);
    expect(transport.calls).toHaveLength(1);
  });

  it('returns one page with its continue token when a limit is given', async () => {
    const transport = new RecordingTransport();
    transport.listPage = () => ({ items: [cm('a')], resourceVersion: '10', continue: 't1' });
    const result = await new Client(transport).list(ConfigMap, { limit: 1 });
    expect(result.continue).toBe('t1');
    expect(transport.calls).toHaveLength(1);
  });
});

describe('Client writes', () => {
  it('fills apiVersion and kind from the type without changing the caller object', async () => {
    const transport = new RecordingTransport();
    const client = new Client(transport);
    const object = { metadata: { name: 'a', namespace: 'ns' }, data: { k: 'v' } };
    await client.create(ConfigMap, object);
    await client.update(Lease, { metadata: { name: 'l', namespace: 'ns' } });
    expect(transport.calls[0]?.args[0]).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', ...object });
    expect(transport.calls[1]?.args[0]).toMatchObject({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
    });
    expect(object).not.toHaveProperty('kind');
  });

  it('writes always go to the server, even for cached kinds', async () => {
    const transport = new RecordingTransport();
    const cache = fakeCache([cm('a')]);
    // Without read-your-own-writes, which looks up a deleted object's uid when the answer lacks it.
    const client = new Client(transport, { cache, readYourWrites: false });
    await client.update(ConfigMap, cm('a'));
    await client.patch(ConfigMap, { namespace: 'ns', name: 'a' }, 'merge', { data: {} });
    await client.delete(ConfigMap, { namespace: 'ns', name: 'a' });
    expect(cache.reads).toEqual([]);
    expect(transport.calls.map((c) => c.verb)).toEqual(['update', 'patch', 'delete']);
  });

  it('writes the status subresource with updateStatus and patchStatus', async () => {
    const transport = new RecordingTransport();
    const client = new Client(transport, { fieldManager: 'ctl' });
    await client.updateStatus(ConfigMap, cm('a'));
    await client.patchStatus(ConfigMap, { namespace: 'ns', name: 'a' }, 'merge', { status: {} });
    expect(transport.calls[0]?.args[1]).toEqual({ subresource: 'status', fieldManager: 'ctl' });
    expect(transport.calls[1]?.args.slice(1)).toEqual([
      'merge',
      { status: {} },
      { subresource: 'status', fieldManager: 'ctl' },
    ]);
  });

  it('applies server-side with the field manager and force, filling type meta and dropping managedFields', async () => {
    const transport = new RecordingTransport();
    const client = new Client(transport, { fieldManager: 'default-manager' });
    await client.apply(
      ConfigMap,
      { metadata: { name: 'a', namespace: 'ns', managedFields: [{}] }, data: { k: 'v' } },
      { fieldManager: 'ctl', force: true },
    );
    await client.applyStatus(Namespace, { metadata: { name: 'n' }, status: { phase: 'Active' } });
    expect(transport.calls[0]?.args).toEqual([
      { namespace: 'ns', name: 'a' },
      'apply',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { k: 'v' } },
      { fieldManager: 'ctl', force: true, dryRun: undefined, subresource: undefined },
    ]);
    expect(transport.calls[1]?.args[3]).toEqual({
      fieldManager: 'default-manager',
      force: undefined,
      dryRun: undefined,
      subresource: 'status',
    });
  });

  it('refuses to apply without a field manager or a name', async () => {
    const client = new Client(new RecordingTransport());
    await expect(client.apply(ConfigMap, { metadata: { name: 'a', namespace: 'ns' } })).rejects.toThrow(
      /fieldManager/,
    );
    await expect(
      client.apply(ConfigMap, { metadata: { namespace: 'ns' } }, { fieldManager: 'x' }),
    ).rejects.toThrow(/metadata.name/);
  });

  it('deleteIfExists answers false on NotFound and rethrows anything else', async () => {
    const transport = new RecordingTransport();
    const client = new Client(transport);
    const key = { namespace: 'ns', name: 'a' };
    expect(await client.deleteIfExists(ConfigMap, key, { propagationPolicy: 'Background' })).toBe(true);
    expect(transport.calls[0]?.args[1]).toEqual({ propagationPolicy: 'Background' });
    transport.deleteResult = () => {
      throw apiError(404, 'NotFound', 'gone');
    };
    expect(await client.deleteIfExists(ConfigMap, key)).toBe(false);
    transport.deleteResult = () => {
      throw apiError(403, 'Forbidden', 'no');
    };
    await expect(client.deleteIfExists(ConfigMap, key)).rejects.toMatchObject({ code: 403 });
  });

  it('evicts a pod by POSTing an Eviction to its eviction subresource', async () => {
    const transport = new RecordingTransport();
    await new Client(transport).evict({ namespace: 'ns', name: 'p' }, { gracePeriodSeconds: 5 });
    expect(transport.calls[0]).toEqual({
      verb: 'createSubresource',
      type: 'Pod',
      args: [
        { namespace: 'ns', name: 'p' },
        'eviction',
        {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: 'p', namespace: 'ns' },
          deleteOptions: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 5 },
        },
      ],
    });
  });
});
