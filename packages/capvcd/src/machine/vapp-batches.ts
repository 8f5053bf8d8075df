/**
 * Machines waiting for their VM to be made in their cluster's vApp, per vApp, within this process:
 * a reconcile that finds the vApp busy leaves its VM's item here and returns; the first reconcile
 * that finds the vApp idle sends the next batch ({@link nextBatch}) in one recompose and leaves
 * each other machine its outcome (the task, or the refusal), which that machine takes on its next
 * reconcile. Nothing here is needed for safety: every VM is named by its machine and found by that
 * name, the sender leaves out names the vApp already holds (just read), and VCD refuses a duplicate;
 * a restart loses only the waiting, which the machines' next reconciles fill again.
 */
import type { Clock } from '@capstan/runtime';
import type { TaskRef } from '../api/types.js';
import { type BatchCandidate, DEFAULT_BATCH_CAP, nextBatch, refusalBlamesItems } from '../decide/batch.js';
import { VcdError } from '../vcd/errors.js';
import type { NewVm } from '../vcd/vapp.js';

/** How long past its machine's next look a waiting entry or an untaken outcome is kept. */
export const BATCH_GRACE_MS = 10_000;

/** One machine's VM, waiting for a recompose. */
export interface WaitingVm extends BatchCandidate {
  item: NewVm;
  /** Kept until then (its machine's next look, plus grace); renewed by every look that waits. */
  until: number;
}

/** What became of a machine's VM in a batch another machine sent. */
export type BatchOutcome = { task: TaskRef; size: number } | { error: Error };

/** Per vApp, the machines waiting to join it; per machine, the outcome of the batch it was sent in. */
export class VAppBatches {
  private readonly waiting = new Map<string, Map<string, WaitingVm>>();
  private readonly outcomes = new Map<string, { outcome: BatchOutcome; until: number }>();
  /** Machines whose last batch was refused for its items: they go alone next. */
  private readonly alone = new Set<string>();

  constructor(
    private readonly clock: Clock,
    /** The most VMs in one recompose. */
    readonly cap = DEFAULT_BATCH_CAP,
  ) {}

  /** `machine` waits for its VM (`item`) in `vapp` and looks again within `lookMs`; how many wait there. */
  join(vapp: string, machine: string, item: NewVm, lookMs: number): number {
    let queue = this.waiting.get(vapp);
    if (!queue) {
      queue = new Map();
      this.waiting.set(vapp, queue);
    }
    const now = this.clock.now();
    const joinedAt = queue.get(machine)?.joinedAt ?? now;
    queue.set(machine, {
      machine,
      vmName: item.name,
      joinedAt,
      alone: this.alone.has(machine),
      item,
      until: now + lookMs + BATCH_GRACE_MS,
    });
    return this.live(vapp).length;
  }

  /** `machine` no longer waits on `vapp` (being deleted, or its VM seen): nothing of it is sent. */
  leave(vapp: string, machine: string): void {
    const queue = this.waiting.get(vapp);
    if (queue?.delete(machine) && queue.size === 0) this.waiting.delete(vapp);
  }

  /**
   * The batch `sender` (just found the vApp idle, holding `present` VM names) sends now, taken out
   * of the waiting: `sender` itself unless older machines fill the cap, then it waits its turn.
   */
  take(
    vapp: string,
    sender: { machine: string; item: NewVm; lookMs: number },
    present: ReadonlySet<string>,
  ): WaitingVm[] {
    this.join(vapp, sender.machine, sender.item, sender.lookMs);
    const batch = nextBatch(this.live(vapp), present, this.cap) as WaitingVm[];
    for (const vm of batch) this.leave(vapp, vm.machine);
    return batch;
  }

  /** The batch was sent as `task`: each other member takes it on its next look. */
  sent(batch: WaitingVm[], sender: string, task: TaskRef): void {
    for (const vm of batch) {
      this.alone.delete(vm.machine);
      if (vm.machine !== sender) this.keepOutcome(vm, { task, size: batch.length });
    }
  }

  /** VCD refused the batch with `error`: each other member takes the refusal; if it blames the items, all go alone. */
  refused(batch: WaitingVm[], sender: string, error: unknown): void {
    const blames = error instanceof VcdError && refusalBlamesItems(error.transient, batch.length);
    for (const vm of batch) {
      if (blames) this.alone.add(vm.machine);
      if (vm.machine !== sender) this.keepOutcome(vm, { error: memberError(error, vm, batch.length) });
    }
  }

  /** The outcome of the batch another machine sent with `machine`'s VM, once. */
  claim(machine: string): BatchOutcome | undefined {
    const kept = this.outcomes.get(machine);
    this.outcomes.delete(machine);
    return kept && kept.until >= this.clock.now() ? kept.outcome : undefined;
  }

  /** The machine waiting longest on `vapp`, other than `except`. */
  oldest(vapp: string, except: string): string | undefined {
    const others = this.live(vapp).filter((w) => w.machine !== except);
    return nextBatch(others, new Set(), 1)[0]?.machine;
  }

  /** `machine` is gone or done with VCD: forget it. */
  forget(vapp: string, machine: string): void {
    this.leave(vapp, machine);
    this.outcomes.delete(machine);
    this.alone.delete(machine);
  }

  /** vApps with machines waiting, and outcomes not yet taken (for tests). */
  get size(): { vapps: number; outcomes: number } {
    return { vapps: this.waiting.size, outcomes: this.outcomes.size };
  }

  /** The waiting on `vapp` whose machines still look, past-due ones dropped (deleted or paused meanwhile). */
  private live(vapp: string): WaitingVm[] {
    const queue = this.waiting.get(vapp);
    if (!queue) return [];
    const now = this.clock.now();
    for (const [machine, vm] of queue) if (vm.until < now) queue.delete(machine);
    if (queue.size === 0) this.waiting.delete(vapp);
    return [...queue.values()];
  }

  private keepOutcome(vm: WaitingVm, outcome: BatchOutcome): void {
    this.outcomes.set(vm.machine, { outcome, until: vm.until });
  }
}

/** The refusal as the member's own: VCD's code and status kept, so its condition and backoff follow. */
function memberError(error: unknown, vm: WaitingVm, size: number): Error {
  const why = error instanceof Error ? error.message : String(error);
  const message = `the recompose of ${size} VMs that carried ${vm.vmName} was refused: ${why}`;
  return error instanceof VcdError
    ? new VcdError(error.status, error.minorErrorCode, message, error.call)
    : new Error(message);
}
