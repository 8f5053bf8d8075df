/** WatchRecord on a real kube-apiserver: every state a watch delivers, in order, from its return on. */
import { useControlPlane } from '@capstan/envtest/vitest';
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { ConfigMap, HttpTransport } from '../../src/client/index.js';
import { eventually, WatchRecord } from '../../src/testing/index.js';

const env = useControlPlane('watch-record');

describe('WatchRecord', () => {
  it('keeps every state of its namespace, oldest first, calls onEvent on each, and stops', async () => {
    const client = new Client(new HttpTransport(env.kubeConfig));
    const namespace = env.namespace;
    await client.create(ConfigMap, { metadata: { name: 'before', namespace }, data: { step: '0' } });
    const seen: string[] = [];
    const record = await WatchRecord.start(env.kubeConfig, ConfigMap, {
      namespace,
      onEvent: (cm) => seen.push(`${cm.metadata.name}=${cm.data?.step}`),
    });
    // Synced when start returns: what existed is recorded already.
    expect(record.states.map((cm) => cm.metadata.name)).toContain('before');

    // Three writes in a row: the middle state lasts only until the next write, yet it is kept.
    await client.create(ConfigMap, { metadata: { name: 'steps', namespace }, data: { step: '1' } });
    for (const step of ['2', '3'])
      await client.patch(ConfigMap, { namespace, name: 'steps' }, 'merge', { data: { step } });
    await eventually(() => record.states.some((cm) => cm.data?.step === '3'), {
      what: 'the last write recorded',
      timeoutMs: 20_000,
    });
    const steps = record.states.filter((cm) => cm.metadata.name === 'steps').map((cm) => cm.data?.step);
    expect(steps).toEqual(['1', '2', '3']);
    expect(record.find((cm) => cm.data?.step === '2')?.metadata.name).toBe('steps');
    expect(record.find((cm) => cm.data?.step === 'never')).toBeUndefined();
    expect(seen).toEqual(record.states.map((cm) => `${cm.metadata.name}=${cm.data?.step}`));

    await record.stop();
    const count = record.states.length;
    await client.patch(ConfigMap, { namespace, name: 'steps' }, 'merge', { data: { step: '4' } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(record.states).toHaveLength(count);
  });
});
