/**
 * What to notify after a round: a pure function of the writes that landed, the groups' halted
 * state before and after, and the queue. Each landed transition is notified once, in the order
 * the writes were applied (so in order per node); a group's halt once when it starts; a node's
 * long wait once per request.
 */
import { coordinatorKeys } from '@capstan/reboot-protocol';
import type { QueueEntry } from '../api/reboot-group.js';
import type { NodeWrite, PlannedAction } from '../decide/node-write.js';

/** The events a webhook can be told of. */
export const NOTIFICATION_EVENTS = [
  'Scheduled',
  'Granted',
  'Rebooted',
  'Verified',
  'Failed',
  'Halted',
  'Waiting',
] as const;

/** One kind of notification. */
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** One notification to send, before it is addressed and formatted. */
export interface Notification {
  event: NotificationEvent;
  group: string;
  /** The node (absent for a group's halt). */
  node?: string;
  /** Why, in a few words (the failure marker, the wait reason, the halting nodes). */
  reason: string;
  /** When the round decided it, ms since the epoch. */
  at: number;
}

/** The node transitions that are notified, each action to its event. */
const EVENT_OF_ACTION: Partial<Record<PlannedAction, NotificationEvent>> = {
  Scheduled: 'Scheduled',
  Granted: 'Granted',
  GrantAdopted: 'Granted',
  RebootVerified: 'Rebooted',
  Completed: 'Verified',
  MarkedFailed: 'Failed',
  SetAside: 'Failed',
};

/** What a round leaves for {@link decideNotifications}. */
export interface RoundFacts {
  /** The writes that landed, in the order they were applied. */
  applied: readonly NodeWrite[];
  /** Each node's group. */
  membership: Readonly<Record<string, string>>;
  /** Groups halted after the round, each with why (its `Halted` condition's message). */
  halted: Readonly<Record<string, string>>;
  /** Each group's queue after the round. */
  queues: Readonly<Record<string, readonly QueueEntry[]>>;
  /** Each group's waiting threshold in ms (absent: no waiting notification). */
  waitingThresholdMs: Readonly<Record<string, number>>;
  now: number;
}

/** What the notifier remembers between rounds (nothing else). */
export interface NotifierMemory {
  /** Groups halted at the previous round. */
  halted: ReadonlySet<string>;
  /** `node|requestedAt` of the long waits already notified. */
  waitsNotified: ReadonlySet<string>;
}

/** An empty memory: a fresh coordinator. */
export const FRESH_MEMORY: NotifierMemory = { halted: new Set(), waitsNotified: new Set() };

/** The notifications of one round, and the memory for the next. */
export function decideNotifications(
  facts: RoundFacts,
  memory: NotifierMemory,
): { notifications: Notification[]; memory: NotifierMemory } {
  const out: Notification[] = [];
  const at = facts.now;
  for (const write of facts.applied) {
    const group = facts.membership[write.node] ?? '';
    const seen = new Set<NotificationEvent>();
    for (const action of write.actions) {
      const event = EVENT_OF_ACTION[action];
      // MarkedFailed and SetAside in one write are one failure.
      if (!event || seen.has(event)) continue;
      seen.add(event);
      out.push({ event, group, node: write.node, reason: reasonOf(write, action), at });
    }
  }
  for (const [group, why] of Object.entries(facts.halted)) {
    if (!memory.halted.has(group)) out.push({ event: 'Halted', group, reason: why, at });
  }
  const waitsNotified = new Set<string>();
  for (const [group, queue] of Object.entries(facts.queues)) {
    const threshold = facts.waitingThresholdMs[group];
    for (const entry of queue) {
      const key = `${entry.node}|${entry.requestedAt}`;
      if (memory.waitsNotified.has(key)) {
        waitsNotified.add(key);
        continue;
      }
      const since = Date.parse(entry.requestedAt);
      if (threshold === undefined || !Number.isFinite(since) || facts.now - since < threshold) continue;
      waitsNotified.add(key);
      out.push({
        event: 'Waiting',
        group,
        node: entry.node,
        reason: `${entry.reason}: ${entry.message}`,
        at,
      });
    }
  }
  return { notifications: out, memory: { halted: new Set(Object.keys(facts.halted)), waitsNotified } };
}

function reasonOf(write: NodeWrite, action: PlannedAction): string {
  if (action === 'MarkedFailed' || action === 'SetAside') {
    return (
      write.setAnnotations[coordinatorKeys.failed] ?? write.setAnnotations[coordinatorKeys.setAside] ?? action
    );
  }
  return action;
}
