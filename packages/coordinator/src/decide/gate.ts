/**
 * The gate of a group: whether it may schedule or grant anything new this round, and if not, why.
 * Nothing new while the group is invalid, paused, halted (a node carries the failure marker),
 * waiting for a lower-order group (one with a node asking or in flight), in a blackout, or outside
 * its windows (weekly and cron-style).
 * In-flight nodes always finish: the gate only holds back new work.
 */
import { coordinatorKeys } from '@capstan/reboot-protocol';
import type { Blackout } from '../api/reboot-calendar.js';
import type { WaitReason } from '../api/reboot-group.js';
import type { Finding } from './finding.js';
import type { GroupPolicy } from './group-policy.js';

/** How to resume a halted group, named wherever the halt is reported. */
export const CLEAR_HINT = `set ${coordinatorKeys.clearFailure} on a failed node to clear it`;

/** A closed gate: the reason every waiting node of the group is given, and its message. */
export interface Gate {
  reason: WaitReason;
  message: string;
}

/** What the gate of one group looks at. */
export interface GateInput {
  group: GroupPolicy;
  /** Nodes of the group marked failed. */
  failed: readonly string[];
  windowOpen: boolean;
  /** The blackout the group is in now, if any (nothing new starts, whatever the windows say). */
  blackout?: Blackout;
  /** Lower-order groups with a node asking or in flight. */
  lowerBusy: readonly string[];
  /** Groups whose selectors cannot be evaluated (the default group's membership is unknown then). */
  membershipUnknown: readonly string[];
  /** Whether `group` is the default group. */
  isDefault: boolean;
}

const GATE_MESSAGES: Partial<Record<WaitReason, string>> = {
  InvalidGroup: 'the group is invalid (see its Valid condition)',
  GroupPaused: 'the group is paused',
  GroupHalted: 'a node of the group is marked failed',
  WaitingForLowerOrder: 'a group with a lower order has nodes asking or in flight',
  OutsideWindow: 'outside the group’s reboot windows',
};

/** The group's gate; `undefined` when it is open. */
export function gateOf(input: GateInput): Gate | undefined {
  const { group: g, failed, lowerBusy, membershipUnknown } = input;
  const invalid = g.problems.length > 0 || (input.isDefault && membershipUnknown.length > 0);
  const reason: WaitReason | undefined = invalid
    ? 'InvalidGroup'
    : g.paused
      ? 'GroupPaused'
      : failed.length > 0
        ? 'GroupHalted'
        : lowerBusy.length > 0
          ? 'WaitingForLowerOrder'
          : input.blackout
            ? 'Blackout'
            : !input.windowOpen
              ? 'OutsideWindow'
              : undefined;
  if (reason === undefined) return undefined;
  let message = GATE_MESSAGES[reason] ?? reason;
  if (reason === 'WaitingForLowerOrder') message = `${message}: ${lowerBusy.join(', ')}`;
  if (reason === 'GroupHalted') message = `${message}: ${failed.join(', ')} (${CLEAR_HINT})`;
  if (reason === 'Blackout' && input.blackout) message = blackoutMessage(input.blackout);
  if (reason === 'InvalidGroup' && g.problems.length === 0) {
    message = `membership is unknown while groups ${membershipUnknown.join(', ')} have invalid selectors`;
  }
  return { reason, message };
}

/** A finding for each failed node: its group grants nothing new until the node is cleared. */
export function failedNodeFindings(group: GroupPolicy, failed: readonly string[]): Finding[] {
  return failed.map((name) => ({
    kind: 'NodeFailed',
    severity: 'Warning',
    node: name,
    group: group.name,
    message: `node ${name} carries ${coordinatorKeys.failed}; group ${group.name} grants nothing new until ${coordinatorKeys.clearFailure} is set on it`,
  }));
}

function blackoutMessage(b: Blackout): string {
  const reason = typeof b.reason === 'string' && b.reason !== '' ? `: ${b.reason}` : '';
  return `in a blackout from ${String(b.start)} to ${String(b.end)}${reason}`;
}
