import { describe, expect, it } from 'vitest';
import { isNotFound } from '../../src/api/errors.js';
import { ConfigMap } from '../../src/client/index.js';
import { createOrUpdate } from '../../src/helpers/create-or-update.js';
import { setControllerReference } from '../../src/helpers/owner-references.js';
import type { Manager } from '../../src/manager/manager.js';
import { ConformanceRun } from '../../src/testing/conformance/conformance-run.js';
import { orphans } from '../../src/testing/conformance/garbage-collector.js';
import {
  ConformanceFailure,
  type ConformanceScenario,
  checkConformance,
  FakeCluster,
  ManualClock,
  runSchedule,
  searchConformance,
} from '../../src/testing/index.js';

const NS = 'ns';
const source = (name: string, v: string): ConfigMap => ({
  metadata: { name, namespace: NS, labels: { role: 'source' } },
  data: { v },
});

type Copier = (manager: Manager, request: { namespace?: string; name: string }) => Promise<void>;

/** A controller copying each `role=source` ConfigMap into `<name>-copy`, owned by the source. */
const copier: Copier = async (manager, request) => {
  let src: ConfigMap;
  try {
    src = await manager.client.get(ConfigMap, request);
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
  if (src.metadata.labels?.role !== 'source' || src.metadata.deletionTimestamp) return;
  await createOrUpdate(
    manager.client,
    ConfigMap,
    { namespace: NS, name: `${request.name}-copy` },
    (cm: ConfigMap) => {
      setControllerReference(ConfigMap, src, cm);
      cm.data = { ...src.data };
    },
  );
};

function scenario(reconcile: Copier, extra: Partial<ConformanceScenario> = {}): ConformanceScenario {
  return {
    name: 'copier',
    kinds: [ConfigMap],
    setup: (manager) => {
      manager
        .controllerBuilder()
        .for(ConfigMap, { labelSelector: 'role=source' })
        .owns(ConfigMap)
        .build((request) => reconcile(manager, request));
    },
    world: ({ client }) => client.create(ConfigMap, source('a', '1')),
    actions: [
      {
        name: 'change a',
        run: ({ client }) =>
          client.patch(ConfigMap, { namespace: NS, name: 'a' }, 'merge', { data: { v: '2' } }),
      },
      { name: 'create b', run: ({ client }) => client.create(ConfigMap, source('b', '1')) },
    ],
    converged: (cluster) =>
      cluster
        .objects(ConfigMap, NS)
        .filter((c) => c.metadata.labels?.role === 'source')
        .every(
          (s) =>
            cluster.getObject(ConfigMap, { namespace: NS, name: `${s.metadata.name}-copy` })?.data?.v ===
            s.data?.v,
        ),
    teardown: {
      name: 'delete the sources',
      run: async ({ client, cluster }) => {
        for (const s of cluster.objects(ConfigMap, NS).filter((c) => c.metadata.labels?.role === 'source'))
          await client.delete(ConfigMap, { namespace: NS, name: s.metadata.name ?? '' });
      },
    },
    stepMs: 2_000,
    settleMs: 120_000,
    ...extra,
  };
}

/** Copies from the first read only (a cache read of a key it never reads again): a stale read sticks. */
const copyOnce: Copier = async (manager, request) => {
  const copy = await manager.client
    .get(ConfigMap, { namespace: NS, name: `${request.name}-copy` })
    .catch(() => undefined);
  if (copy) return;
  await copier(manager, request);
};

describe('checkConformance', () => {
  it('passes a correct reconciler under searched schedules', async () => {
    const report = await checkConformance(scenario(copier), { numRuns: 15, seed: 7 });
    expect(report).toMatchObject({ scenario: 'copier', runs: 15, seed: 7 });
  }, 60_000);

  it('fails a broken one with the shrunk schedule, the violation and a replayable seed', async () => {
    const failure = await checkConformance(scenario(copyOnce), { numRuns: 20, seed: 7 }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ConformanceFailure);
    const { report } = failure as ConformanceFailure;
    expect(report.failure?.violation).toMatch(/did not converge/);
    expect((failure as Error).message).toContain('smallest failing schedule:');
    expect((failure as Error).message).toContain(`seed: 7, path: ${JSON.stringify(report.failure?.path)}`);
    // The same seed finds the same schedule; the path replays it alone; the schedule replays it too.
    const again = await searchConformance(scenario(copyOnce), { numRuns: 20, seed: 7 });
    expect(again.failure).toEqual(report.failure);
    const replayed = await searchConformance(scenario(copyOnce), { seed: 7, path: report.failure?.path });
    expect(replayed.failure?.violation).toBe(report.failure?.violation);
    expect(await runSchedule(scenario(copyOnce), report.failure?.schedule ?? { slots: [] })).toBe(
      report.failure?.violation,
    );
  }, 120_000);

  it('checks the invariants after every write of the controller', async () => {
    const violation = await runSchedule(
      scenario(copier, {
        invariants: { 'no copy of b': (c) => !c.getObject(ConfigMap, { namespace: NS, name: 'b-copy' }) },
      }),
      { slots: [[], [], []] },
    );
    expect(violation).toBe('invariant "no copy of b" broken by the controller\'s create of ConfigMap b-copy');
  });

  it('says which delete never completes', async () => {
    const finalizing = scenario(copier, {
      world: ({ client }) =>
        client.create(ConfigMap, {
          ...source('a', '1'),
          metadata: { ...source('a', '1').metadata, finalizers: ['x/never'] },
        }),
    });
    const violation = await runSchedule(finalizing, { slots: [[], [], []] });
    expect(violation).toBe('after "delete the sources", deletes never completed: ConfigMap ns/a');
  }, 60_000);
});

describe('orphans: what the garbage collector deletes', () => {
  it('is every object whose owners (of known kinds) are all gone, and nothing else', async () => {
    const cluster = new FakeCluster({ clock: new ManualClock(), kinds: [ConfigMap] });
    const [owner] = cluster.seed(ConfigMap, source('owner', '1'));
    const ref = (uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid, controller: true });
    cluster.seed(
      ConfigMap,
      { metadata: { name: 'kept', namespace: NS, ownerReferences: [ref(owner?.metadata.uid ?? '')] } },
      { metadata: { name: 'orphan', namespace: NS, ownerReferences: [ref('gone')] } },
      {
        metadata: {
          name: 'half',
          namespace: NS,
          ownerReferences: [ref('gone'), ref(owner?.metadata.uid ?? '')],
        },
      },
      {
        metadata: {
          name: 'foreign',
          namespace: NS,
          ownerReferences: [{ ...ref('gone'), apiVersion: 'x.dev/v1', kind: 'Other' }],
        },
      },
      { metadata: { name: 'free', namespace: NS } },
    );
    expect(orphans(cluster, [ConfigMap]).map(([, o]) => o.metadata.name)).toEqual(['orphan']);
  });
});

describe('ConformanceRun: a stale window outlives a crash', () => {
  it('a process started inside the window lists its old snapshot; after it, the present', async () => {
    const run = new ConformanceRun(scenario(copier));
    await run.startProcess();
    await run.perturb({ kind: 'stale', afterWrites: 0, forMs: 5_000, end: 'deliver' });
    await run.user.client.create(ConfigMap, source('late', '1'));
    const restarted = await run.restart();
    // What its cache lists from (resourceVersion "0": the watch cache) is the old snapshot.
    const names = async () =>
      (await restarted.list(ConfigMap, { namespace: NS, resourceVersion: '0' })).items.map(
        (o) => o.metadata.name,
      );
    expect(await names()).toEqual([]);
    await run.run(6_000);
    expect(await names()).toEqual(['late', 'late-copy']);
    await run.shutdown();
  });
});
