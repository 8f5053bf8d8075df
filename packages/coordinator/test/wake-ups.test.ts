/**
 * What wakes the coordinator's one key: a group's spec (and labels, annotations), never the echo
 * of a status write (every round that changes a group's counts writes one).
 */
import { Client, Manager } from '@capstan/runtime';
import { Event, Lease, Node } from '@capstan/runtime/client';
import { FakeCluster } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { addCoordinator, RebootGroupType } from '../src/index.js';

const NS = 'capstan-system';

async function addNode(fake: FakeCluster, name: string, labels: Record<string, string>) {
  fake.seed(Node, { metadata: { name, labels } });
  const status = { status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { bootID: 'b' } } };
  await fake.patch(Node, { name }, 'merge', status, { subresource: 'status' });
}

describe('the coordinator’s wake-ups', () => {
  it('plans again on a group spec change, never on a status write alone (its own status echo)', async () => {
    const fake = new FakeCluster({ kinds: [Node, RebootGroupType, Lease, Event] });
    await addNode(fake, 'n1', { pool: 'p' });
    fake.seed(RebootGroupType, {
      metadata: { name: 'g' },
      spec: { nodeSelector: { matchLabels: { pool: 'p' } }, maxUnavailable: 1 },
    });
    const manager = Manager.create({
      transport: fake,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logLevel: 'silent',
    });
    const { reconciler } = addCoordinator(manager, { namespace: NS });
    let rounds = 0;
    const round = reconciler.round.bind(reconciler);
    reconciler.round = () => {
      rounds++;
      return round();
    };
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    const settle = async () => {
      for (let seen = -1; seen !== rounds; ) {
        seen = rounds;
        await new Promise((r) => setTimeout(r, 300));
      }
    };
    try {
      const written = () => fake.getObject(RebootGroupType, { name: 'g' })?.status;
      for (let i = 0; i < 200 && !written(); i++) await new Promise((r) => setTimeout(r, 10));
      await settle();
      expect(written()).toMatchObject({ nodes: 1 });
      const before = rounds;
      const client = new Client(fake);
      const status = { status: { windowOpen: false } };
      await client.patch(RebootGroupType, { name: 'g' }, 'merge', status, { subresource: 'status' });
      await new Promise((r) => setTimeout(r, 300));
      expect(rounds).toBe(before);
      await client.patch(RebootGroupType, { name: 'g' }, 'merge', { spec: { maxUnavailable: 2 } });
      for (let i = 0; i < 200 && rounds === before; i++) await new Promise((r) => setTimeout(r, 10));
      expect(rounds).toBeGreaterThan(before);
    } finally {
      stop.abort();
      await running;
    }
  });
});
