/**
 * The events a plan's writes announce on their nodes, once the writes are applied: what was done
 * (scheduled, granted, verified, released, ...) and, for a failure marker, why.
 */
import { coordinatorKeys } from '@capstan/reboot-protocol';
import type { NodeWrite, PlannedAction } from './node-write.js';

/** An event to record on a node when its write was applied. */
export interface PlannedEvent {
  node: string;
  type: 'Normal' | 'Warning';
  reason: string;
  note: string;
}

const EVENT_OF: Partial<Record<PlannedAction, Omit<PlannedEvent, 'node'>>> = {
  Scheduled: {
    type: 'Normal',
    reason: 'RebootScheduled',
    note: 'scheduled for a reboot; waiting for before-reboot checks',
  },
  Revoked: {
    type: 'Normal',
    reason: 'RebootRevoked',
    note: 'stopped asking before its grant; schedule revoked',
  },
  Granted: { type: 'Normal', reason: 'RebootGranted', note: 'reboot granted' },
  GrantAdopted: {
    type: 'Warning',
    reason: 'GrantAdopted',
    note: 'reboot-ok found without our grant records; adopted',
  },
  RebootVerified: { type: 'Normal', reason: 'RebootVerified', note: 'rebooted into a new boot ID and Ready' },
  Released: { type: 'Normal', reason: 'RebootReleased', note: 'grant released' },
  Completed: {
    type: 'Normal',
    reason: 'RebootCompleted',
    note: 'back Ready and schedulable; reboot cycle complete',
  },
  MarkedFailed: {
    type: 'Warning',
    reason: 'RebootFailed',
    note: 'a deadline passed; the node is marked failed',
  },
  HookTimedOut: {
    type: 'Warning',
    reason: 'BeforeRebootHooksTimedOut',
    note: 'not granted within the hook timeout (before-reboot annotations or a gate); sent back to the queue',
  },
  SetAside: {
    type: 'Warning',
    reason: 'RebootSetAside',
    note: 'failed and set aside by the group’s failure policy; out of the group until cleared',
  },
  FailureCleared: {
    type: 'Normal',
    reason: 'RebootFailureCleared',
    note: 'failure cleared by clear-failure; grant and its records withdrawn',
  },
};

/** The events of `writes`, in order, naming each node's group. */
export function eventsOf(
  writes: readonly NodeWrite[],
  membership: Readonly<Record<string, string>>,
): PlannedEvent[] {
  const events: PlannedEvent[] = [];
  for (const write of writes) {
    const group = membership[write.node] ?? '';
    for (const action of write.actions) {
      const e = EVENT_OF[action];
      if (!e) continue;
      let note = `${e.note} (group ${group})`;
      if (action === 'MarkedFailed') note = `${note}: ${write.setAnnotations[coordinatorKeys.failed] ?? ''}`;
      if (action === 'SetAside') note = `${note}: ${write.setAnnotations[coordinatorKeys.setAside] ?? ''}`;
      events.push({ node: write.node, ...e, note });
    }
  }
  return events;
}
