/**
 * The status write every reconciler makes: only when the status changed (a reconcile of an
 * unchanged world writes nothing), only the fields that changed, and only onto the version it was
 * computed from. A reconcile that read a copy older than its own last write must not put the older
 * status back; its patch is refused with 409 Conflict and the next reconcile decides again.
 */
import type { KubeObject, ResourceType } from '../api/types.js';
import type { Client } from '../client/client.js';
import { type Clock, realClock } from '../clock.js';
import { type Condition, setCondition } from './conditions.js';
import { mergePatchBetween } from './create-or-update.js';
import { isJsonObject, jsonEqual } from './json-equal.js';
import { conditionalMergePatch } from './merge-patch.js';

/** How {@link writeStatusIfChanged} stamps condition transitions. */
export interface WriteStatusOptions {
  /** The clock a changed condition's `lastTransitionTime` is read from: pass `manager.clock`. */
  clock?: Pick<Clock, 'now'>;
}

const isCondition = (value: unknown): value is Condition =>
  isJsonObject(value) && typeof value.type === 'string' && typeof value.status === 'string';

/**
 * `next` with its `conditions` stamped against `previous`'s: a condition whose status did not
 * change keeps its `lastTransitionTime`, any other gets `now` (the time a caller may have put there
 * is replaced, so every transition is on one clock). Anything else in `next` is kept as it is.
 */
export function keepTransitionTimes(
  previous: Readonly<Record<string, unknown>>,
  next: Readonly<Record<string, unknown>>,
  now: Date,
): Record<string, unknown> {
  if (!Array.isArray(next.conditions)) return { ...next };
  const before = Array.isArray(previous.conditions) ? previous.conditions.filter(isCondition) : [];
  const conditions = next.conditions.map((c: unknown) => {
    if (!isCondition(c)) return c;
    const { lastTransitionTime: _ignored, ...input } = c;
    const same = before.filter((b) => b.type === c.type && b.status === c.status);
    return setCondition(same, input, now).find((s) => s.type === c.type);
  });
  return { ...next, conditions };
}

/**
 * Writes `status` to `object`'s status subresource when it differs from `object.status`: a merge
 * patch of the difference (a field `status` lacks is removed) carrying `object`'s resourceVersion
 * as a precondition, so it is refused with 409 Conflict (an `ApiError`, thrown) if the object
 * changed since it was read. Conditions keep their transition time unless their status changed
 * (see {@link keepTransitionTimes}).
 * @returns whether a write was sent.
 */
export async function writeStatusIfChanged<T extends KubeObject & { status?: unknown }>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  status: NonNullable<T['status']>,
  options: WriteStatusOptions = {},
): Promise<boolean> {
  const previous = isJsonObject(object.status) ? object.status : {};
  const now = new Date((options.clock ?? realClock).now());
  const next = keepTransitionTimes(previous, status as Record<string, unknown>, now);
  if (jsonEqual(next, previous)) return false;
  const { name, namespace } = object.metadata;
  if (!name) throw new Error(`writeStatusIfChanged: the ${type.kind} has no metadata.name`);
  const patch = conditionalMergePatch(
    object.metadata.resourceVersion,
    {},
    {
      status: mergePatchBetween(previous, next),
    },
  );
  await client.patchStatus(type, namespace ? { namespace, name } : { name }, 'merge', patch);
  return true;
}
