/**
 * On the real API server: a ValidatingAdmissionPolicy refuses every coordinator write to one node
 * (403). The round goes on for the others, the refused node is reported on its group, and the
 * grant fence never keeps its refused claim.
 */
import { fileURLToPath } from 'node:url';
import { refuseWrites } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client, Manager } from '@capstan/runtime';
import { HttpTransport, Lease, Node } from '@capstan/runtime/client';
import { eventually, ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCoordinator,
  CoordinatorReconciler,
  FENCE_PENDING_KEY,
  type RebootGroup,
  RebootGroupType,
} from '../src/index.js';

const env = useControlPlane('coord-refused');
const A = capstanProtocol.annotations;
let admin: Client;
let lift: (() => Promise<void>) | undefined;
const name = (n: string) => `${env.namespace}-${n}`;

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  await env.plane.installCRDs([fileURLToPath(new URL('../deploy/crds/rebootgroups.yaml', import.meta.url))]);
  for (const [n, pool] of [
    ['bad', 'p'],
    ['p2', 'p'],
    ['o1', 'o'],
  ] as const) {
    await admin.create(Node, {
      metadata: {
        name: name(n),
        labels: { pool: `${env.namespace}-${pool}` },
        annotations: { [A.rebootNeeded]: 'true' },
      },
    });
    await admin.patch(
      Node,
      { name: name(n) },
      'merge',
      { status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { bootID: `${n}-boot` } } },
      { subresource: 'status' },
    );
  }
  for (const pool of ['p', 'o']) {
    await admin.create(RebootGroupType, {
      metadata: { name: `${env.namespace}-${pool}` },
      spec: { nodeSelector: { matchLabels: { pool: `${env.namespace}-${pool}` } }, maxUnavailable: 1 },
    } as RebootGroup);
  }
  const bad = name('bad');
  lift = await refuseWrites(env.plane, {
    name: `refuse-${env.namespace}`,
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['nodes'] }],
    expression: `object.metadata.name != '${bad}' || !has(object.metadata.annotations) || !object.metadata.annotations.exists(k, k.startsWith('reboot.capstan.dev/') && k != '${A.rebootNeeded}')`,
    message: 'writes to this node are refused',
    probe: () =>
      admin.patch(
        Node,
        { name: bad },
        'merge',
        { metadata: { annotations: { 'reboot.capstan.dev/probe': 'x' } } },
        { dryRun: true },
      ),
    timeoutMs: 20_000,
  });
});
afterAll(async () => {
  await lift?.();
});

describe('a node the API server refuses to write', () => {
  it('stays that node’s problem: the others are granted, it is reported, the fence keeps no refused claim', async () => {
    const clock = new ManualClock(Date.now());
    const all = await admin.list(Node);
    const mine = new Set([name('bad'), name('p2'), name('o1')]);
    const groups = [`${env.namespace}-p`, `${env.namespace}-o`];
    const c = new CoordinatorReconciler(
      { namespace: env.namespace, fenceName: `fence-${env.namespace}` },
      {
        client: admin,
        clock,
        read: async () => ({
          nodes: (await admin.list(Node)).items.filter((n) => mine.has(n.metadata.name ?? '')),
          groups: (await admin.list(RebootGroupType)).items.filter((g) =>
            groups.includes(g.metadata.name ?? ''),
          ),
        }),
      },
    );
    expect(all.items.length).toBeGreaterThanOrEqual(3);
    const first = await c.round();
    expect(first.refused).toContain(name('bad'));
    await c.round();
    await c.round();
    const ok = async (n: string) =>
      (await admin.get(Node, { name: name(n) })).metadata.annotations?.[A.rebootOk];
    expect(await ok('o1')).toBe('true');
    expect(await ok('p2')).toBe('true');
    expect(await ok('bad')).toBeUndefined();
    const pool = await admin.get(RebootGroupType, { name: `${env.namespace}-p` });
    expect(pool.status?.conditions?.find((k) => k.type === 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'WritesRefused',
    });
    const fence = await admin.get(Lease, { namespace: env.namespace, name: `fence-${env.namespace}` });
    // A landed grant stays pending until the next begin settles it; a refused one never does.
    expect(fence.metadata.annotations?.[FENCE_PENDING_KEY] ?? '').not.toContain(name('bad'));
  }, 60_000);

  it('keeps /readyz 200: one refused node is that node’s problem, counted in a metric, not "cannot serve"', async () => {
    const manager = Manager.create({
      kubeConfig: env.kubeConfig,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      logLevel: 'silent',
    });
    addCoordinator(manager, {
      namespace: env.namespace,
      fenceName: `fence-${env.namespace}`,
      nodeSelector: `pool in (${env.namespace}-p, ${env.namespace}-o)`,
    });
    const stop = new AbortController();
    const done = manager.start(stop.signal);
    try {
      const refusals = await eventually(
        async () => {
          const { metrics } = manager.listening;
          if (!metrics) return undefined;
          const text = await (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
          const line = text
            .split('\n')
            .find(
              (l) => l.startsWith('capstan_coordinator_write_refusals_total{') && l.includes('code="403"'),
            );
          return line && Number(line.split(' ').at(-1)) > 0 ? line : undefined;
        },
        { what: 'a refused write counted', timeoutMs: 30_000 },
      );
      expect(refusals).toContain(`group="${env.namespace}-p"`);
      const ready = await fetch(`http://127.0.0.1:${manager.listening.probes}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      stop.abort();
      await done;
    }
  }, 60_000);
});
