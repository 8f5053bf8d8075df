import { type Condition, defineResource, type KubeObject } from '@capstan/runtime';

/** A Greeting asks for a ConfigMap holding a message for each recipient. */
export interface Greeting extends KubeObject {
  spec: { message: string; recipients?: string[] };
  status?: { observedGeneration?: number; configMapName?: string; conditions?: Condition[] };
}

/** The Greeting kind, declared once for the client, the cache and the builder. */
export const GreetingType = defineResource<Greeting>({
  group: 'example.capstan.dev',
  version: 'v1alpha1',
  kind: 'Greeting',
  plural: 'greetings',
  namespaced: true,
});

/** The owned ConfigMap's name for a Greeting. */
export const configMapNameFor = (greeting: Greeting): string => `${greeting.metadata.name}-greeting`;

/** The ConfigMap's content: one line per recipient (or the bare message). */
export function renderGreeting(spec: Greeting['spec']): string {
  const recipients = spec.recipients?.length ? spec.recipients : [undefined];
  return recipients.map((to) => (to ? `${spec.message}, ${to}!` : spec.message)).join('\n');
}
