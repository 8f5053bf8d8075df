/** The Greeting controller's conformance scenario, from its documented behaviour (shared by its tests). */
import { ConfigMap } from '@capstan/runtime/client';
import type { ConformanceScenario, FakeCluster } from '@capstan/runtime/testing';
import { addGreeting, configMapNameFor, type Greeting, GreetingType, renderGreeting } from '../src/index.js';

const NS = 'default';
const greeting = (name: string, message: string, recipients?: string[]): Greeting => ({
  apiVersion: 'example.capstan.dev/v1alpha1',
  kind: 'Greeting',
  metadata: { name, namespace: NS },
  spec: { message, ...(recipients ? { recipients } : {}) },
});

/** Every Greeting has its ConfigMap, owned by it, with its rendered message, and Ready for its generation. */
function everyGreetingServed(cluster: FakeCluster): true | string {
  for (const g of cluster.objects(GreetingType, NS)) {
    const cm = cluster.getObject(ConfigMap, { namespace: NS, name: configMapNameFor(g) });
    if (!cm) return `no ConfigMap for ${g.metadata.name}`;
    if (cm.data?.greeting !== renderGreeting(g.spec)) return `stale ConfigMap for ${g.metadata.name}`;
    const owner = cm.metadata.ownerReferences?.find((r) => r.controller);
    if (owner?.uid !== g.metadata.uid) return `ConfigMap of ${g.metadata.name} not owned by it`;
    if (g.status?.observedGeneration !== g.metadata.generation) return `${g.metadata.name} not observed`;
    if (!g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      return `${g.metadata.name} not Ready`;
  }
  return true;
}

export const greetingScenario: ConformanceScenario = {
  name: 'greeting',
  kinds: [GreetingType, ConfigMap],
  setup: (manager) => {
    addGreeting(manager);
  },
  world: async ({ client }) => client.create(GreetingType, greeting('early', 'Hello')),
  actions: [
    {
      name: 'create greeting hello',
      run: ({ client }) => client.create(GreetingType, greeting('hello', 'Hi', ['Ada'])),
    },
    {
      name: 'change the message of hello',
      run: ({ client }) =>
        client.patch(GreetingType, { namespace: NS, name: 'hello' }, 'merge', { spec: { message: 'Salut' } }),
    },
    {
      name: 'delete the ConfigMap of early',
      run: ({ client }) => client.deleteIfExists(ConfigMap, { namespace: NS, name: 'early-greeting' }),
    },
  ],
  converged: everyGreetingServed,
  invariants: {
    'a ConfigMap belongs to one Greeting': (cluster) =>
      cluster.objects(ConfigMap, NS).every((cm) => (cm.metadata.ownerReferences ?? []).length <= 1),
  },
  teardown: {
    name: 'delete every greeting',
    run: async ({ client, cluster }) => {
      for (const g of cluster.objects(GreetingType, NS))
        await client.delete(GreetingType, { namespace: NS, name: g.metadata.name ?? '' });
    },
  },
};
