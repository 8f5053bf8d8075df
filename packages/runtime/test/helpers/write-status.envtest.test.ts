import { testCrd } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  Client,
  defineResource,
  HttpTransport,
  isConflict,
  type KubeObject,
} from '../../src/client/index.js';
import type { Condition } from '../../src/helpers/index.js';
import { writeStatusIfChanged } from '../../src/helpers/index.js';
import { ManualClock } from '../../src/testing/index.js';

interface Lamp extends KubeObject {
  status?: { lit?: boolean; note?: string; conditions?: Condition[] };
}
const LampType = defineResource<Lamp>({
  group: 'status.capstan.dev',
  version: 'v1',
  kind: 'Lamp',
  plural: 'lamps',
  namespaced: true,
});
const lampCrd = testCrd(LampType, {
  schema: {
    type: 'object',
    properties: {
      status: {
        type: 'object',
        properties: {
          lit: { type: 'boolean' },
          note: { type: 'string' },
          conditions: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                type: { type: 'string' },
                status: { type: 'string' },
                reason: { type: 'string' },
                message: { type: 'string' },
                lastTransitionTime: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
});

/** The real client, keeping the status patches it sent. */
class RecordingClient extends Client {
  readonly patches: unknown[] = [];
  override patchStatus<T extends KubeObject>(...args: Parameters<Client['patchStatus']>): Promise<T> {
    this.patches.push(args[3]);
    return super.patchStatus(...args) as Promise<T>;
  }
}

const env = useControlPlane('write-status');
let client: RecordingClient;
beforeAll(async () => {
  await env.plane.installCRDs([lampCrd]);
  client = new RecordingClient(new HttpTransport(env.kubeConfig));
});

const ready = (status: 'True' | 'False'): Condition =>
  ({ type: 'Ready', status, reason: status === 'True' ? 'On' : 'Off', message: '' }) as Condition;

describe('writeStatusIfChanged against a real API server', () => {
  it('writes a changed status once, then nothing for the same status', async () => {
    const clock = new ManualClock(Date.parse('2030-01-02T03:04:05Z'));
    const lamp = await client.create(LampType, { metadata: { namespace: env.namespace, name: 'once' } });
    client.patches.length = 0;
    expect(
      await writeStatusIfChanged(
        client,
        LampType,
        lamp,
        { lit: true, conditions: [ready('True')] },
        { clock },
      ),
    ).toBe(true);
    const written = await client.get(LampType, { namespace: env.namespace, name: 'once' }, { direct: true });
    expect(written.status).toEqual({
      lit: true,
      conditions: [{ ...ready('True'), lastTransitionTime: '2030-01-02T03:04:05Z' }],
    });
    clock.advance(60_000);
    expect(
      await writeStatusIfChanged(
        client,
        LampType,
        written,
        { lit: true, conditions: [ready('True')] },
        { clock },
      ),
    ).toBe(false);
    expect(client.patches).toEqual([
      {
        metadata: { resourceVersion: lamp.metadata.resourceVersion },
        status: { lit: true, conditions: [{ ...ready('True'), lastTransitionTime: '2030-01-02T03:04:05Z' }] },
      },
    ]);
  });

  it('patches only the difference, removes what the status lacks, and moves a flipped condition on the clock', async () => {
    const clock = new ManualClock(Date.parse('2030-01-02T03:04:05Z'));
    const key = { namespace: env.namespace, name: 'diff' };
    const lamp = await client.create(LampType, { metadata: key });
    await writeStatusIfChanged(
      client,
      LampType,
      lamp,
      { lit: true, note: 'x', conditions: [ready('True')] },
      { clock },
    );
    const first = await client.get(LampType, key, { direct: true });
    clock.advance(3_600_000);
    client.patches.length = 0;
    await writeStatusIfChanged(
      client,
      LampType,
      first,
      { lit: false, conditions: [ready('False')] },
      { clock },
    );
    expect(client.patches).toEqual([
      {
        metadata: { resourceVersion: first.metadata.resourceVersion },
        status: {
          lit: false,
          note: null,
          conditions: [{ ...ready('False'), lastTransitionTime: '2030-01-02T04:04:05Z' }],
        },
      },
    ]);
    const second = await client.get(LampType, key, { direct: true });
    expect(second.status).toEqual({
      lit: false,
      conditions: [{ ...ready('False'), lastTransitionTime: '2030-01-02T04:04:05Z' }],
    });
  });

  it('is refused with 409 when the object changed since it was read, and leaves the newer status', async () => {
    const clock = new ManualClock(Date.parse('2030-01-02T03:04:05Z'));
    const key = { namespace: env.namespace, name: 'stale' };
    const stale = await client.create(LampType, { metadata: key });
    await writeStatusIfChanged(client, LampType, stale, { note: 'newer' }, { clock });
    const err = await writeStatusIfChanged(client, LampType, stale, { note: 'older' }, { clock }).catch(
      (e) => e,
    );
    expect(isConflict(err)).toBe(true);
    expect((await client.get(LampType, key, { direct: true })).status).toEqual({ note: 'newer' });
  });
});
