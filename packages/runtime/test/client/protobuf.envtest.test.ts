/**
 * Protobuf against the real kube-apiserver: for objects of many built-in kinds, with the fields
 * whose JSON is special (quantities, int-or-strings, times and micro-times, embedded JSON, inline
 * structs, pointers to zero values, binary data), what the transport decodes from protobuf is
 * exactly, key order included, what the same server's JSON gives: on get, list, watch and write,
 * and for error Statuses.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { defineResource, type ResourceType } from '../../src/api/types.js';
import {
  ConfigMap,
  HttpTransport,
  isNotFound,
  Lease,
  Pod,
  type UnstructuredObject,
} from '../../src/client/index.js';
import { decodeObject } from '../../src/transport/protobuf/envelope.js';
import { sampleObjects } from './protobuf-samples.js';
import { rawRequest } from './raw-request.js';

const env = useControlPlane('protobuf');

const rawGet = (path: string, accept: string) => rawRequest(env.kubeConfig, path, accept);

const same = (pb: unknown, json: unknown) => {
  expect(pb).toStrictEqual(json);
  // Key order too: both follow the Go struct's field order.
  expect(JSON.stringify(pb)).toBe(JSON.stringify(json));
};

describe('protobuf decoding matches the server JSON', () => {
  let pb: HttpTransport;
  let json: HttpTransport;
  let samples: Array<{ type: ResourceType; object: UnstructuredObject; status?: Record<string, unknown> }>;

  beforeAll(async () => {
    pb = new HttpTransport(env.kubeConfig);
    json = new HttpTransport(env.kubeConfig, { protobuf: false });
    samples = sampleObjects(env.namespace);
    for (const { type, object, status } of samples) {
      const created = await json.create(type, object);
      const withStatus: UnstructuredObject = { ...created, status };
      if (status) await json.update(type, withStatus, { subresource: 'status' });
    }
  });

  it('the server answers the Accept the transport sends with protobuf, which decodes to its JSON', async () => {
    const path = `/api/v1/namespaces/${env.namespace}/configmaps/cm`;
    const answer = await rawGet(path, 'application/vnd.kubernetes.protobuf, application/json');
    expect(answer.contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(answer.body.subarray(0, 4)).toEqual(Buffer.from('k8s\0', 'latin1'));
    same(decodeObject(answer.body), await json.get(ConfigMap, { namespace: env.namespace, name: 'cm' }));
  });

  it('get: every sample kind reads the same', async () => {
    for (const { type, object } of samples) {
      const key = { namespace: type.namespaced ? env.namespace : undefined, name: object.metadata.name! };
      same(await pb.get(type, key), await json.get(type, key));
    }
  });

  it('list: every sample kind reads the same, pages and continue tokens included', async () => {
    for (const { type } of samples) {
      const options = { namespace: type.namespaced ? env.namespace : undefined, limit: 1 };
      const [a, b] = [await pb.list(type, options), await json.list(type, options)];
      same(a.items, b.items);
      // The tokens name the list's resourceVersion, which other tests' writes move on: only
      // whether there is a next page must agree.
      expect(a.continue === undefined).toBe(b.continue === undefined);
    }
  });

  it('watch: the initial events and the bookmark read the same', async () => {
    for (const { type } of samples.filter((s) => s.type.namespaced)) {
      const read = async (transport: HttpTransport) => {
        const events: unknown[] = [];
        await new Promise<void>((resolve, reject) => {
          void transport
            .watch(
              type,
              {
                namespace: env.namespace,
                sendInitialEvents: true,
                resourceVersionMatch: 'NotOlderThan',
                allowWatchBookmarks: true,
              },
              {
                onEvent: (event) => {
                  if (event.type === 'BOOKMARK') {
                    handle.then((h) => h.stop());
                    resolve();
                  } else events.push(event);
                },
                onClose: (err) => (err ? reject(err) : resolve()),
              },
            )
            .then((h) => {
              resolveHandle(h);
            }, reject);
          let resolveHandle: (h: { stop(): void }) => void = () => {};
          const handle = new Promise<{ stop(): void }>((r) => {
            resolveHandle = r;
          });
        });
        return events;
      };
      same(await read(pb), await read(json));
    }
  });

  it('writes answer with the same object', async () => {
    const key = { namespace: env.namespace, name: 'cm' };
    const a = await pb.patch(ConfigMap, key, 'merge', { data: { k: 'from-pb' } });
    const b = await json.get(ConfigMap, key);
    same(a, b);
    const lease = await pb.get(Lease, { namespace: env.namespace, name: 'lease' });
    const updated = await pb.update(Lease, {
      ...lease,
      spec: { ...(lease.spec as object), leaseTransitions: 3 },
    });
    same(updated, await json.get(Lease, { namespace: env.namespace, name: 'lease' }));
  });

  it('an error Status reads the same (a protobuf Status)', async () => {
    const key = { namespace: env.namespace, name: 'absent' };
    const [a, b] = await Promise.all([pb.get(Pod, key).catch((e) => e), json.get(Pod, key).catch((e) => e)]);
    expect(isNotFound(a)).toBe(true);
    expect(a.status).toStrictEqual(b.status);
    expect(a.message).toBe(b.message);
  });

  it('a kind the runtime has no schema for (a custom resource) stays on JSON', async () => {
    const Unknown = defineResource({
      group: 'example.dev',
      version: 'v1',
      kind: 'Gadget',
      plural: 'gadgets',
      namespaced: true,
    });
    const err = await pb.get(Unknown, { namespace: env.namespace, name: 'x' }).catch((e) => e);
    expect(isNotFound(err)).toBe(true);
  });
});
