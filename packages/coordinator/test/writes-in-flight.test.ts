/**
 * A round sends the writes that take no slot (request stamps, releases) several at once, and
 * those that take one after them, one by one: the first round of a rollout stamps every asking
 * node, and its first grant should not wait on a thousand patches in a row.
 */

import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { ApiError, Client } from '@capstan/runtime';
import { type ApiTransport, Lease, Node } from '@capstan/runtime/client';
import { FakeCluster, ManualClock } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { CoordinatorReconciler, RebootGroupType, WRITES_IN_FLIGHT } from '../src/index.js';
import { addReadyNode } from './fake-nodes.js';

const A = capstanProtocol.annotations;
const START = Date.UTC(2025, 0, 6, 12, 0, 0);
const NODES = 24;

interface Patch {
  node: string;
  start: number;
  end: number;
  grant: boolean;
}

/** The fake cluster behind a transport whose node patches take a few milliseconds, logged. */
function slowPatches(fake: FakeCluster, log: Patch[], inFlight: { now: number; most: number }): ApiTransport {
  let tick = 0;
  return new Proxy(fake, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'patch') return value.bind(t);
      return async (...args: unknown[]) => {
        if (args[0] !== Node) return (value as (...a: unknown[]) => Promise<unknown>).apply(t, args);
        const body = args[3] as { metadata?: { annotations?: Record<string, unknown> } };
        const entry: Patch = {
          node: (args[1] as { name: string }).name,
          start: tick++,
          end: -1,
          grant: body.metadata?.annotations?.[A.rebootOk] === 'true',
        };
        inFlight.now++;
        inFlight.most = Math.max(inFlight.most, inFlight.now);
        try {
          await new Promise((r) => setTimeout(r, 3));
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(t, args);
        } finally {
          inFlight.now--;
          entry.end = tick++;
          log.push(entry);
        }
      };
    },
  });
}

async function fleet(): Promise<FakeCluster> {
  const fake = new FakeCluster({ clock: new ManualClock(START), kinds: [Node, RebootGroupType, Lease] });
  for (let i = 0; i < NODES; i++) {
    // Asking, not yet stamped: the round stamps every one of them and grants one.
    await addReadyNode(fake, `n${String(i).padStart(2, '0')}`, {}, { [A.rebootNeeded]: 'true' });
  }
  return fake;
}

function coordinator(transport: ApiTransport, fake: FakeCluster): CoordinatorReconciler {
  return new CoordinatorReconciler(
    { namespace: 'capstan-system', defaultGrantTimeoutMs: 10 * 60_000 },
    {
      client: new Client(transport),
      clock: new ManualClock(START),
      read: () => ({ nodes: fake.objects(Node), groups: fake.objects(RebootGroupType) }),
    },
  );
}

describe('writes in flight', () => {
  it('sends the stamps several at once, and the grant only after all of them', async () => {
    const fake = await fleet();
    const log: Patch[] = [];
    const inFlight = { now: 0, most: 0 };
    const round = await coordinator(slowPatches(fake, log, inFlight), fake).round();
    expect(round.stopped).toBeUndefined();
    const stamps = log.filter((p) => !p.grant);
    const grants = log.filter((p) => p.grant);
    expect(stamps).toHaveLength(NODES - 1);
    expect(grants).toHaveLength(1);
    expect(inFlight.most).toBeGreaterThan(1);
    expect(inFlight.most).toBeLessThanOrEqual(WRITES_IN_FLIGHT);
    const lastStampEnd = Math.max(...stamps.map((p) => p.end));
    expect(grants[0]?.start).toBeGreaterThan(lastStampEnd);
    const stamped = fake.objects(Node).filter((n) => n.metadata.annotations?.[coordinatorKeys.requestedAt]);
    expect(stamped).toHaveLength(NODES - 1); // the granted node's stamp is spent by its grant
  });

  it('starts no write after a conflict and grants nothing in that round', async () => {
    const fake = await fleet();
    fake.addFault((r) =>
      r.key?.name === 'n03' && r.verb === 'patch'
        ? new ApiError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 409, reason: 'Conflict' })
        : undefined,
    );
    const log: Patch[] = [];
    const round = await coordinator(slowPatches(fake, log, { now: 0, most: 0 }), fake).round();
    expect(round.stopped).toBe('node-conflict');
    expect(log.some((p) => p.grant)).toBe(false);
    // Those already in flight when n03 conflicted finish; none starts after it.
    const conflictEnd = log.find((p) => p.node === 'n03')?.end ?? -1;
    expect(log.filter((p) => p.start > conflictEnd)).toEqual([]);
    expect(log.length).toBeLessThan(NODES - 1);
    expect(round.applied.map((w) => w.node)).not.toContain('n03');
  });
});
