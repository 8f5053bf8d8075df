/**
 * Where the reconcilers read a VCDCluster's credentials Secret: from an informer of that one
 * Secret (its namespace and `metadata.name`), made the first time a VCDCluster allowed to use it
 * names it. A reconcile then reads memory, not the API server (at 100 machines that was ~16 GETs a
 * machine, one a reconcile), and no other Secret is cached: bootstrap data and kubeconfigs stay
 * out. A rotated Secret reaches the informer by its watch, and the next reconcile connects with
 * what it holds. Until the informer has synced (just made, or list and watch refused) the Secret
 * is read from the API server, as before. An informer stays for the process's life: there are as
 * many as Secrets ever named, a handful.
 */
import type { Client, KubeObject, ResourceType } from '@capstan/runtime';
import type { InformerRestriction, SharedInformer } from '@capstan/runtime/cache';
import { Secret } from '@capstan/runtime/client';
import type { SecretKey } from './credentials.js';
import { getOrUndefined } from './scope.js';

/** What gives informers: the manager's `cache`. */
export interface InformerSource {
  informerFor<T extends KubeObject>(
    type: ResourceType<T>,
    restriction?: InformerRestriction,
  ): SharedInformer<T>;
}

/** The informer restriction that holds the one Secret `key` names. */
export const secretRestriction = (key: SecretKey): InformerRestriction => ({
  namespace: key.namespace,
  fieldSelector: `metadata.name=${key.name}`,
});

/** Reads credentials Secrets, from their own informers once synced (see the file comment). */
export class CredentialsSecrets {
  /**
   * @param client reads the Secret until its informer has synced, and everything else.
   * @param informers without it, every read goes to the API server.
   */
  constructor(
    readonly client: Client,
    private readonly informers?: InformerSource,
  ) {}

  /** The Secret `key` names, or undefined when it does not exist. */
  async get(key: SecretKey): Promise<Secret | undefined> {
    const informer = this.informers?.informerFor(Secret, secretRestriction(key));
    if (informer?.hasSynced()) return informer.store.getByName(key.namespace, key.name);
    return getOrUndefined(() => this.client.get(Secret, key));
  }
}
