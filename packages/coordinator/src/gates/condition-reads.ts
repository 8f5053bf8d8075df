/**
 * Where a conditions gate reads its objects. With the coordinator's informer cache, each condition
 * gets an informer of its own, restricted to what it names (its namespace and, for a named object,
 * `metadata.name`), so a round reads memory, not the API server, and a condition over one object
 * never caches its whole kind. Until that informer has synced (starting, or its kind not served or
 * not readable by list and watch), the round reads the API server instead, once per object however
 * many groups name it, so its error (not found, forbidden) is the one the condition reports.
 */
import { type Client, defineResource, type KubeObject, type ResourceType } from '@capstan/runtime';
import type { InformerRestriction, SharedInformer } from '@capstan/runtime/cache';
import type { RebootGroupSpecGatesConditionsItem } from '../api/generated/reboot-group.js';

/** One entry of a group's `gates.conditions`. */
export type ConditionSpec = RebootGroupSpecGatesConditionsItem;

/** One object a condition reads, with the name its verdict gives it. */
export interface NamedObject {
  name: string;
  object: unknown;
}

/** What gives informers: the manager's `cache`. */
export interface InformerSource {
  informerFor<T extends KubeObject>(
    type: ResourceType<T>,
    restriction?: InformerRestriction,
  ): SharedInformer<T>;
}

/** The lower-case plural a CRD generator gives a kind (the common English rules). */
export function pluralOf(kind: string): string {
  const k = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(k)) return `${k}es`;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

/** The resource a condition names. */
export function conditionResource(c: ConditionSpec): ResourceType<KubeObject> {
  const slash = c.apiVersion.indexOf('/');
  return defineResource<KubeObject>({
    group: slash < 0 ? '' : c.apiVersion.slice(0, slash),
    version: slash < 0 ? c.apiVersion : c.apiVersion.slice(slash + 1),
    kind: c.kind,
    plural: c.resource || pluralOf(c.kind),
    namespaced: Boolean(c.namespace),
  });
}

/** The informer a condition reads through: its namespace, and its object's name when it names one. */
export function conditionRestriction(c: ConditionSpec): InformerRestriction {
  return {
    ...(c.namespace ? { namespace: c.namespace } : {}),
    ...(c.name ? { fieldSelector: `metadata.name=${c.name}` } : {}),
  };
}

/** One round's reads of the conditions' objects; see the file comment. Make one per round. */
export class ConditionReads {
  private readonly direct = new Map<string, Promise<NamedObject[]>>();
  /** API server reads this round (reads the informers answered are not counted). */
  directReads = 0;

  constructor(
    private readonly client: Client,
    private readonly informers?: InformerSource,
  ) {}

  /** The objects `c` names; rejects with what could not be read. */
  read(c: ConditionSpec): Promise<NamedObject[]> {
    const type = conditionResource(c);
    const where = `${c.kind} ${c.namespace ? `${c.namespace}/` : ''}`;
    const informer = this.informers?.informerFor(type, conditionRestriction(c));
    if (informer?.hasSynced()) return Promise.resolve().then(() => fromStore(informer, c, where));
    const key = `${c.apiVersion}|${type.plural}|${c.namespace ?? ''}|${c.name ?? ''}`;
    let read = this.direct.get(key);
    if (!read) {
      this.directReads++;
      read = this.fromServer(type, c, where);
      this.direct.set(key, read);
    }
    return read;
  }

  private async fromServer(type: ResourceType<KubeObject>, c: ConditionSpec, where: string) {
    const said = (err: unknown) => (err instanceof Error ? err.message : String(err));
    if (c.name) {
      const key = { name: c.name, ...(c.namespace ? { namespace: c.namespace } : {}) };
      const object = await this.client.get(type, key, { direct: true }).catch((err: unknown) => {
        throw new Error(`${where}${c.name} could not be read: ${said(err)}`);
      });
      return [{ name: `${where}${c.name}`, object }];
    }
    const { items } = await this.client
      .list(type, { ...(c.namespace ? { namespace: c.namespace } : {}), direct: true })
      .catch((err: unknown) => {
        throw new Error(`${where}objects could not be listed: ${said(err)}`);
      });
    return items.map((o) => ({ name: `${where}${o.metadata.name ?? ''}`, object: o }));
  }
}

function fromStore(informer: SharedInformer<KubeObject>, c: ConditionSpec, where: string): NamedObject[] {
  if (c.name) {
    const object = informer.store.getByName(c.namespace || undefined, c.name);
    if (!object) throw new Error(`${where}${c.name} could not be read: not found`);
    return [{ name: `${where}${c.name}`, object }];
  }
  return informer.store.list().map((o) => ({ name: `${where}${o.metadata.name ?? ''}`, object: o }));
}
