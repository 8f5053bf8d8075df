/**
 * withFinalizer under the conformance harness: crashes after any write, stale caches, lost events,
 * injected 409/410/429/500s. A ConfigMap labelled `mirror=secret` is mirrored into a Secret under
 * a finalizer whose cleanup deletes the Secret; unlabelling releases it. Converged: a labelled
 * source has its finalizer and its Secret, an unlabelled one neither; after teardown nothing is left.
 */
import { describe, it } from 'vitest';
import { isNotFound } from '../../src/api/errors.js';
import { ConfigMap, Secret } from '../../src/client/index.js';
import { createOrUpdate, hasFinalizer, withFinalizer } from '../../src/helpers/index.js';
import type { Manager } from '../../src/manager/manager.js';
import { type ConformanceScenario, checkConformance } from '../../src/testing/index.js';

const FINALIZER = 'example.com/mirror';
const key = { namespace: 'ns', name: 'settings' };
const labelled = (cm: ConfigMap) => cm.metadata.labels?.mirror === 'secret';

function addMirror(manager: Manager) {
  const client = manager.client;
  manager
    .controllerBuilder()
    .for(ConfigMap)
    .buildObjects(
      withFinalizer(client, ConfigMap, FINALIZER, {
        selects: labelled,
        apply: async (source) => {
          await createOrUpdate(client, Secret, key, (secret: Secret) => {
            secret.data = { v: Buffer.from(source.data?.v ?? '').toString('base64') };
          });
        },
        cleanup: async () => {
          await client.delete(Secret, key).catch((err: unknown) => {
            if (!isNotFound(err)) throw err;
          });
        },
      }),
    );
}

const scenario: ConformanceScenario = {
  name: 'finalizer-mirror',
  kinds: [ConfigMap, Secret],
  setup: addMirror,
  actions: [
    {
      name: 'create a labelled source',
      run: ({ client }) =>
        client.create(ConfigMap, { metadata: { ...key, labels: { mirror: 'secret' } }, data: { v: '1' } }),
    },
    { name: 'change it', run: ({ client }) => client.patch(ConfigMap, key, 'merge', { data: { v: '2' } }) },
    {
      name: 'unlabel it',
      run: ({ client }) => client.patch(ConfigMap, key, 'merge', { metadata: { labels: { mirror: null } } }),
    },
    {
      name: 'label it again',
      run: ({ client }) =>
        client.patch(ConfigMap, key, 'merge', { metadata: { labels: { mirror: 'secret' } } }),
    },
  ],
  converged: (cluster) => {
    const source = cluster.getObject(ConfigMap, key);
    const secret = cluster.getObject(Secret, key);
    if (!source) return secret ? 'a Secret outlived its source' : true;
    if (!labelled(source))
      return !hasFinalizer(source, FINALIZER) && !secret
        ? true
        : 'an unlabelled source is still held or mirrored';
    if (!hasFinalizer(source, FINALIZER)) return 'a labelled source without the finalizer';
    const want = Buffer.from(source.data?.v ?? '').toString('base64');
    return secret?.data?.v === want || 'the Secret does not mirror its source';
  },
  invariants: {
    'a Secret only while its source holds the finalizer': (cluster) => {
      const source = cluster.getObject(ConfigMap, key);
      const secret = cluster.getObject(Secret, key);
      return (
        !secret ||
        (source !== undefined && hasFinalizer(source, FINALIZER)) ||
        'a Secret with no finalizer guarding it'
      );
    },
  },
  teardown: { name: 'delete the source', run: ({ client }) => client.delete(ConfigMap, key) },
};

describe('withFinalizer under crashes, stale caches, lost events and injected errors', () => {
  it('keeps the finalizer exactly while there is something to clean up', async () => {
    await checkConformance(scenario, { numRuns: 25, seed: 11 });
  }, 300_000);
});
