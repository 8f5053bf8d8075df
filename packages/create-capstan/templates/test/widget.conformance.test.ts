/**
 * The Widget controller's conformance: the same wiring as main, on an in-memory cluster, under
 * crashes after writes, stale caches, lost events, injected API errors and clock jumps. Add your
 * controller's own actions and checks as it grows (docs/testing.md in the Capstan repository).
 */
import { ConfigMap } from '@capstan/runtime/client';
import { type ConformanceScenario, checkConformance, type FakeCluster } from '@capstan/runtime/testing';
import { expect, it } from 'vitest';
import { WidgetType } from '../src/api/generated.js';
import { addWidget } from '../src/index.js';

const NS = 'default';

/** Every Widget has its ConfigMap, owned by it and holding its message, and is Ready. */
function everyWidgetServed(cluster: FakeCluster): true | string {
  for (const w of cluster.objects(WidgetType, NS)) {
    const cm = cluster.getObject(ConfigMap, { namespace: NS, name: `${w.metadata.name}-message` });
    if (cm?.data?.message !== w.spec.message) return `no up-to-date ConfigMap for ${w.metadata.name}`;
    if (cm.metadata.ownerReferences?.find((r) => r.controller)?.uid !== w.metadata.uid)
      return `ConfigMap of ${w.metadata.name} not owned by it`;
    if (!w.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      return `${w.metadata.name} not Ready`;
  }
  return true;
}

const scenario: ConformanceScenario = {
  name: 'widget',
  kinds: [WidgetType, ConfigMap],
  setup: (manager) => {
    addWidget(manager);
  },
  actions: [
    {
      name: 'create widget hello',
      run: ({ client }) =>
        client.create(WidgetType, { metadata: { name: 'hello', namespace: NS }, spec: { message: 'hello' } }),
    },
    {
      name: 'change its message',
      run: ({ client }) =>
        client.patch(WidgetType, { namespace: NS, name: 'hello' }, 'merge', { spec: { message: 'hi' } }),
    },
  ],
  converged: everyWidgetServed,
  teardown: {
    name: 'delete widget hello',
    run: ({ client }) => client.delete(WidgetType, { namespace: NS, name: 'hello' }),
  },
};

it('converges, writes nothing once converged, and leaves nothing behind', async () => {
  const report = await checkConformance(scenario, { numRuns: 20, seed: 1 });
  expect(report.failure).toBeUndefined();
}, 60_000);
