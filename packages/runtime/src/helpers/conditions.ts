import { isoSeconds } from '../iso-time.js';

/** A status condition, as `metav1.Condition`. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** RFC 3339; changes only when `status` changes. */
  lastTransitionTime: string;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
}

/** A condition to set; `lastTransitionTime` is filled in. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

/**
 * Returns `conditions` with `condition` set (a new array; the input is not changed).
 * `lastTransitionTime` moves only when the status changes, so it tells when the state last flipped,
 * not when the controller last looked.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  condition: ConditionInput,
  now: Date = new Date(),
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === condition.type);
  const previous = index >= 0 ? list[index] : undefined;
  const lastTransitionTime =
    previous && previous.status === condition.status
      ? previous.lastTransitionTime
      : (condition.lastTransitionTime ?? isoSeconds(now.getTime()));
  const next: Condition = { ...condition, lastTransitionTime };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}

/** The condition of `type`, if present. */
export function getCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Returns `conditions` without the condition of `type` (a new array). */
export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

/** Whether the condition of `type` is present with status True. */
export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return getCondition(conditions, type)?.status === 'True';
}
