/**
 * The agent's Node conditions, derived from its own annotations: where `kubectl describe node`,
 * node-problem dashboards and condition-based alerts look. A condition is written only when it
 * says something new: `True` when its state begins, `False` when it ends (never a `False` on a
 * node that never had the condition), and nothing while it stands unchanged.
 */
import {
  AGENT_QUARANTINED_ANNOTATION,
  AGENT_QUARANTINED_CONDITION,
  AGENT_SOURCE_ERROR_ANNOTATION,
  AGENT_SOURCE_ERROR_CONDITION,
} from '@capstan/reboot-protocol';
import { isoSeconds } from '@capstan/runtime';

/** A Node condition as `v1.NodeCondition`. */
export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** RFC 3339; moves only when `status` changes. */
  lastTransitionTime: string;
  /** RFC 3339; when the agent last wrote the condition. */
  lastHeartbeatTime: string;
}

/** A condition as it may be on a Node already (any field may be missing; a zero time is null). */
export interface PresentCondition {
  type: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
}

type Wanted = Pick<NodeCondition, 'type' | 'status' | 'reason' | 'message'>;

/** What each of the agent's conditions should say, from the node's annotations. */
export function wantedConditions(annotations: Readonly<Record<string, string>>): Wanted[] {
  const quarantined = annotations[AGENT_QUARANTINED_ANNOTATION];
  const sourceError = annotations[AGENT_SOURCE_ERROR_ANNOTATION];
  return [
    quarantined !== undefined
      ? {
          type: AGENT_QUARANTINED_CONDITION,
          status: 'True',
          reason: 'RebootLoop',
          message: `quarantined (asks for no reboot until an administrator removes ${AGENT_QUARANTINED_ANNOTATION}): ${quarantined}`,
        }
      : {
          type: AGENT_QUARANTINED_CONDITION,
          status: 'False',
          reason: 'QuarantineCleared',
          message: `${AGENT_QUARANTINED_ANNOTATION} was removed: the node asks for reboots again`,
        },
    sourceError !== undefined
      ? {
          type: AGENT_SOURCE_ERROR_CONDITION,
          status: 'True',
          reason: 'SourceCannotTell',
          message: sourceError,
        }
      : {
          type: AGENT_SOURCE_ERROR_CONDITION,
          status: 'False',
          reason: 'SourceAnswers',
          message: 'the reboot-needed source answers',
        },
  ];
}

/**
 * The conditions to write now (a strategic merge patch of `status.conditions` merges them by
 * type): each wanted one that differs from the node's, except a `False` the node has no
 * condition for. `lastTransitionTime` is kept while the status stays the same.
 */
export function conditionUpdates(
  present: readonly PresentCondition[] | undefined,
  annotations: Readonly<Record<string, string>>,
  now: number,
): NodeCondition[] {
  const updates: NodeCondition[] = [];
  for (const wanted of wantedConditions(annotations)) {
    const current = present?.find((c) => c.type === wanted.type);
    if (!current && wanted.status === 'False') continue;
    const same =
      current?.status === wanted.status &&
      current.reason === wanted.reason &&
      current.message === wanted.message;
    if (same) continue;
    const lastTransitionTime =
      current?.status === wanted.status && current.lastTransitionTime
        ? current.lastTransitionTime
        : isoSeconds(now);
    updates.push({ ...wanted, lastTransitionTime, lastHeartbeatTime: isoSeconds(now) });
  }
  return updates;
}
