/**
 * 410 Gone against a real kube-apiserver whose etcd history is compacted: needs a control plane of
 * its own (the shared one refuses compact()).
 */
import { ControlPlane } from '@capstan/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGone } from '../../src/api/errors.js';
import type { ListOptions, WatchEvent } from '../../src/api/types.js';
import { ConfigMap } from '../../src/client/builtin.js';
import { Client } from '../../src/client/client.js';
import { HttpTransport } from '../../src/transport/http-transport.js';
import type { ApiTransport } from '../../src/transport/transport.js';

let plane: ControlPlane;
let transport: HttpTransport;
let client: Client;
const namespace = 'default';

beforeAll(async () => {
  plane = await ControlPlane.start();
  transport = new HttpTransport(plane.kubeConfig);
  client = new Client(transport, { fieldManager: 'capstan-test' });
  for (let i = 0; i < 5; i++) await client.create(ConfigMap, { metadata: { name: `cm-${i}`, namespace } });
});
afterAll(async () => {
  transport?.close();
  await plane?.stop();
});

describe('after etcd compaction', () => {
  it('a watch from an older resourceVersion gets an ERROR event with 410 Expired', async () => {
    const old = await client.get(ConfigMap, { namespace, name: 'cm-0' });
    await client.patch(ConfigMap, { namespace, name: 'cm-0' }, 'merge', { data: { a: 'b' } });
    await plane.compact();

    const events: WatchEvent[] = [];
    const closed = await new Promise<Error | undefined>((resolve, reject) => {
      transport
        .watch(
          ConfigMap,
          { namespace, resourceVersion: old.metadata.resourceVersion },
          { onEvent: (e) => events.push(e), onClose: resolve },
        )
        .catch(reject);
    });
    expect(closed).toBeUndefined();
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event?.type).toBe('ERROR');
    expect(event?.type === 'ERROR' && event.status.code).toBe(410);
  });

  it('a continue token from before the compaction is Gone, and list() starts over once', async () => {
    const page = await transport.list(ConfigMap, { namespace, limit: 2 });
    expect(page.continue).toBeTruthy();
    await client.patch(ConfigMap, { namespace, name: 'cm-1' }, 'merge', { data: { x: '1' } });
    await plane.compact();
    const gone = await transport
      .list(ConfigMap, { namespace, limit: 2, continue: page.continue })
      .catch((e) => e);
    expect(isGone(gone)).toBe(true);

    // A transport that compacts history between the first and the second page.
    const calls: ListOptions[] = [];
    const compacting: ApiTransport = Object.create(transport);
    compacting.list = async (type, options = {}) => {
      calls.push(options);
      if (options.continue && calls.length === 2) {
        await client.patch(ConfigMap, { namespace, name: 'cm-2' }, 'merge', { data: { x: '2' } });
        await plane.compact();
      }
      return transport.list(type, options);
    };
    const all = await new Client(compacting, { pageSize: 2 }).list(ConfigMap, { namespace });
    expect(all.items.map((o) => o.metadata.name).filter((n) => n?.startsWith('cm-'))).toEqual([
      'cm-0',
      'cm-1',
      'cm-2',
      'cm-3',
      'cm-4',
    ]);
    expect(calls.map((c) => [c.limit, Boolean(c.continue)])).toEqual([
      [2, false],
      [2, true],
      [undefined, false],
    ]);
    expect((await client.get(ConfigMap, { namespace, name: 'cm-2' })).data).toEqual({ x: '2' });
  });
});
