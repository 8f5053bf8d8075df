/**
 * FLUO → capstan on a live cluster: the stack runs on FLUO's keys, the real coordinator grants,
 * simulated agents reboot kwok nodes; with one node mid-reboot, one granted and two waiting, the
 * stack switches to our protocol. Every request and grant survives, no node reboots twice, the
 * budget holds at every observation, and no FLUO key is left.
 */
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol, FLUO_PREFIX, fluoProtocol } from '@capstan/reboot-protocol';
import { Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RebootGroupKind, RebootStackType } from '../src/index.js';
import {
  admin,
  condition,
  createStack,
  FLUO_STACK,
  migratedToCapstan,
  prepareCluster,
  stackWhen,
} from './helpers.js';
import { CoordinatorFollower, SimAgent } from './migration-harness.js';
import { catalogueWithB } from './version-b.js';

const env = useOwnControlPlane({ controllerManager: true, scheduler: true, kwok: true }, 'migration');
const BUDGET = 2;
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  stops.push(await prepareCluster(env, catalogueWithB()));
}, 120_000);
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

it('migrates FLUO → capstan with nodes waiting, granted and mid-reboot: nothing lost, nothing doubled, budget held', async () => {
  const client = admin(env);
  const stackNow = () => client.get(RebootStackType, { name: 'capstan' });
  await createStack(
    client,
    FLUO_STACK,
    (s) => s.status?.observedProtocol === 'fluo',
    'the stack Available on FLUO keys',
  );
  await client.create(RebootGroupKind, {
    metadata: { name: 'all' },
    spec: { nodeSelector: {}, maxUnavailable: BUDGET, grantTimeout: '10m' },
  });

  const follower = new CoordinatorFollower(client, env.kubeConfig);
  follower.start();
  stops.push(() => follower.stop());
  const agents = ['worker-0', 'worker-1', 'worker-2', 'cp-0'].map((n) => new SimAgent(client, env.plane, n));
  for (const a of agents) a.start();
  stops.push(async () => {
    for (const a of agents) await a.stop();
  });
  const [midReboot, granted] = agents as [SimAgent, SimAgent];
  midReboot.hold = 'midReboot';
  granted.hold = 'beforeActing';
  for (const a of agents) {
    await a.ask();
    await new Promise((r) => setTimeout(r, 300)); // first come, first served
  }
  const F = fluoProtocol.annotations;
  const annotationsOf = async (name: string) => (await client.get(Node, { name })).metadata.annotations ?? {};
  await eventually(
    async () => {
      const [a0, a1, a2, a3] = await Promise.all(agents.map((a) => annotationsOf(a.name)));
      return a0?.[F.rebootInProgress] === 'true' &&
        a1?.[F.rebootOk] === 'true' &&
        a2?.[F.rebootOk] !== 'true' &&
        a3?.[F.rebootOk] !== 'true' &&
        a2?.[F.rebootNeeded] === 'true'
        ? true
        : undefined;
    },
    { what: 'one node mid-reboot, one granted, two waiting (on FLUO keys)', timeoutMs: 60_000 },
  );

  // The budget at every observation, over both prefixes (a node counts once, whichever side says so).
  let worst = 0;
  let worstSeen = '';
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const { items } = await client.list(Node);
      const down = items.filter((n) => {
        const a = n.metadata.annotations ?? {};
        const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        return (
          [fluoProtocol, capstanProtocol].some(
            (p) => a[p.annotations.rebootOk] === 'true' || a[p.annotations.rebootInProgress] === 'true',
          ) ||
          n.spec?.unschedulable ||
          !ready
        );
      }).length;
      if (down > worst) {
        worst = down;
        worstSeen = JSON.stringify(
          items.map((n) => [
            n.metadata.name,
            n.spec?.unschedulable,
            n.status?.conditions?.find((c) => c.type === 'Ready')?.status,
            Object.fromEntries(
              Object.entries(n.metadata.annotations ?? {}).filter(([k]) => k.includes('reboot')),
            ),
          ]),
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();

  await client.patch(RebootStackType, { name: 'capstan' }, 'merge', { spec: { protocol: 'capstan' } });
  await eventually(
    async () => {
      const phase = (await stackNow()).status?.migration?.phase;
      return phase === 'SwitchingCoordinator' || phase === 'SwitchingAgents' ? phase : undefined;
    },
    { what: 'the migration to carry the grants over', timeoutMs: 60_000 },
  );
  midReboot.hold = 'none';
  granted.hold = 'none';

  const done = await stackWhen(client, migratedToCapstan, 'the migration to finish', 120_000);
  expect(condition(done, 'Degraded')?.status).toBe('False');
  // Every request is served, once: the waiting nodes too, now on our keys.
  await eventually(async () => (agents.every((a) => a.reboots >= 1) ? true : undefined), {
    what: 'every node rebooted',
    timeoutMs: 120_000,
  });
  await eventually(
    async () => {
      const all = await Promise.all(agents.map((a) => annotationsOf(a.name)));
      return all.every(
        (a) =>
          a[capstanProtocol.annotations.rebootOk] !== 'true' &&
          a[capstanProtocol.annotations.rebootNeeded] !== 'true',
      )
        ? true
        : undefined;
    },
    { what: 'every node released', timeoutMs: 120_000 },
  );
  watching = false;
  await watch;
  expect(agents.map((a) => a.reboots)).toEqual([1, 1, 1, 1]);
  expect(worst, worstSeen).toBeLessThanOrEqual(BUDGET);
  // The coordinator stopped between the two protocols; the held agents spoke both.
  expect(follower.history.slice(0, 3)).toEqual(['fluo', 'stopped', 'capstan']);
  expect([...midReboot.spoke].sort()).toEqual(['capstan', 'fluo']);
  // The group is resumed, no FLUO key is left on any node.
  expect((await client.get(RebootGroupKind, { name: 'all' })).spec.paused).toBe(false);
  for (const a of agents) {
    const left = await annotationsOf(a.name);
    expect(
      Object.keys(left).filter((k) => k.startsWith(FLUO_PREFIX)),
      `${a.name}: ${JSON.stringify(left)}`,
    ).toEqual([]);
  }
}, 400_000);
