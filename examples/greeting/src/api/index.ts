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
