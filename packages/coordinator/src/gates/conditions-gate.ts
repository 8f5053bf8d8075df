/**
 * Reads the objects of a group's conditions gate for a round, through the coordinator's client
 * (its informer cache for kinds it caches, else the API server), and decides each condition with
 * {@link conditionVerdict}. A named object that is missing, or a kind that cannot be read (no
 * such resource, no RBAC), makes the condition an `Error`: the gate fails closed.
 */
import { type Client, defineResource, type KubeObject } from '@capstan/runtime';
import type { RebootGroupSpecGatesConditionsItem } from '../api/generated/reboot-group.js';
import type { HealthGateState } from '../decide/health-gates.js';
import { conditionVerdict } from './cel-condition.js';

/** One entry of a group's `gates.conditions`. */
export type ConditionSpec = RebootGroupSpecGatesConditionsItem;

/** The lower-case plural a CRD generator gives a kind (the common English rules). */
export function pluralOf(kind: string): string {
  const k = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(k)) return `${k}es`;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

/** Every condition's state now. */
export async function readConditionsGate(
  client: Client,
  conditions: readonly ConditionSpec[],
): Promise<HealthGateState[]> {
  return Promise.all(
    conditions.map(async (c, i) => {
      const gate = `conditions[${i}]`;
      const objects = await readObjects(client, c).catch((err: unknown) =>
        err instanceof Error ? err : new Error(String(err)),
      );
      return conditionVerdict({
        gate,
        expression: c.expression,
        ...(c.message ? { message: c.message } : {}),
        objects,
      });
    }),
  );
}

async function readObjects(
  client: Client,
  c: ConditionSpec,
): Promise<Array<{ name: string; object: unknown }>> {
  const slash = c.apiVersion.indexOf('/');
  const type = defineResource<KubeObject>({
    group: slash < 0 ? '' : c.apiVersion.slice(0, slash),
    version: slash < 0 ? c.apiVersion : c.apiVersion.slice(slash + 1),
    kind: c.kind,
    plural: c.resource || pluralOf(c.kind),
    namespaced: Boolean(c.namespace),
  });
  const where = `${c.kind} ${c.namespace ? `${c.namespace}/` : ''}`;
  if (c.name) {
    const key = { name: c.name, ...(c.namespace ? { namespace: c.namespace } : {}) };
    const object = await client.get(type, key).catch((err: unknown) => {
      throw new Error(
        `${where}${c.name} could not be read: ${err instanceof Error ? err.message : String(err)}`,
      );
    });
    return [{ name: `${where}${c.name}`, object }];
  }
  const { items } = await client
    .list(type, c.namespace ? { namespace: c.namespace } : {})
    .catch((err: unknown) => {
      throw new Error(
        `${where}objects could not be listed: ${err instanceof Error ? err.message : String(err)}`,
      );
    });
  return items.map((o) => ({ name: `${where}${o.metadata.name ?? ''}`, object: o }));
}
