/**
 * Expectations, the ReplicaSet controller's pattern: after an owner's reconcile creates or deletes
 * dependents, its next reconcile waits until the cache has seen those writes before it counts
 * dependents again, so it never creates twice for a gap that is only the cache's lag. Here the
 * client already knows its own writes (read-your-own-writes), so an expectation is a list of the
 * objects written; it is met once the cache shows every one of them, or after `ttlMs` (5 min, as
 * the ReplicaSet controller: a write whose event was lost must not stall the owner for ever).
 */

import type { KubeObject, ObjectKey, ResourceType } from '../api/types.js';
import type { Client } from '../client/client.js';
import { type Clock, realClock } from '../clock.js';

interface Expected {
  readonly type: ResourceType;
  readonly keys: ObjectKey[];
  readonly since: number;
}

/** Options of {@link Expectations}. */
export interface ExpectationsOptions {
  /** After this long an expectation counts as met (default 5 min). */
  ttlMs?: number;
  clock?: Clock;
}

/**
 * Per owner, the writes its next reconcile should see in the cache before acting again.
 *
 * @example
 * if (!expectations.satisfied(request)) return { requeueAfter: 1_000 }; // or wait for the event
 * const created = await client.create(Pod, podFor(owner));
 * expectations.expect(request, Pod, [created]);
 */
export class Expectations {
  private readonly byOwner = new Map<string, Expected[]>();
  private readonly ttlMs: number;
  private readonly clock: Clock;

  constructor(
    private readonly client: Client,
    options: ExpectationsOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.clock = options.clock ?? realClock;
  }

  /** Records that `owner` waits for the cache to see this client's writes of `objects`. */
  expect(owner: ObjectKey, type: ResourceType, objects: ReadonlyArray<ObjectKey | KubeObject>): void {
    const keys = objects.map((o) =>
      'metadata' in o ? { namespace: o.metadata.namespace, name: o.metadata.name ?? '' } : o,
    );
    const id = ownerId(owner);
    const list = this.byOwner.get(id) ?? [];
    list.push({ type, keys, since: this.clock.now() });
    this.byOwner.set(id, list);
  }

  /** Whether `owner` may act: every expected write seen by the cache (or too old to wait for). */
  satisfied(owner: ObjectKey): boolean {
    const id = ownerId(owner);
    const list = this.byOwner.get(id);
    if (!list) return true;
    const now = this.clock.now();
    const waiting = list.filter(
      (e) => now - e.since <= this.ttlMs && !this.client.writesObserved(e.type, e.keys),
    );
    if (waiting.length === 0) this.byOwner.delete(id);
    else this.byOwner.set(id, waiting);
    return waiting.length === 0;
  }

  /** Forgets `owner`'s expectations (it was deleted). */
  forget(owner: ObjectKey): void {
    this.byOwner.delete(ownerId(owner));
  }
}

const ownerId = (key: ObjectKey) => `${key.namespace ?? ''}/${key.name}`;
