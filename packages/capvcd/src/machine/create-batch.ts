/**
 * VM creation in batches (see {@link VAppBatches}): a machine whose look finds the vApp busy leaves
 * its VM's item and waits; the first to find it idle sends every waiting item it may (up to the
 * cap, oldest first) in one recompose; the others take the task, or the refusal, on their next
 * reconcile. No reconcile waits on a task: the one that sends returns as any write does.
 */
import type { VCDMachineSpec } from '../api/types.js';
import type { MachineStep } from '../decide/machine.js';
import type { Task } from '../vcd/client.js';
import type { Connection } from '../vcd/connections.js';
import { createVms, type NewVm, type VAppRecord } from '../vcd/vapp.js';
import type { MachineScope } from './scope.js';
import type { Target } from './target.js';
import { VAppBatches, type WaitingVm } from './vapp-batches.js';
import type { VAppLocks } from './vapp-locks.js';

/** The machine's own VM as a recompose item; lookups from the session's cached directory. */
export async function vmItem(t: Target, spec: VCDMachineSpec, vmMarker: string): Promise<NewVm> {
  const { directory } = t.connection;
  const { ovdc, networks } = t.placement;
  const [templateVmHref, storageProfileHref, sizingPolicy, placementPolicy] = await Promise.all([
    directory.templateVm(spec.catalog, spec.template),
    spec.storageProfile ? directory.storageProfile(ovdc, spec.storageProfile) : undefined,
    spec.sizingPolicy ? directory.computePolicy(spec.sizingPolicy) : undefined,
    spec.placementPolicy ? directory.computePolicy(spec.placementPolicy) : undefined,
  ]);
  return {
    name: t.vmName,
    description: vmMarker,
    templateVmHref,
    networks,
    ...(t.addressing ? { addressing: t.addressing } : {}),
    guestCustomization: spec.enableGuestCustomization === true,
    ...(storageProfileHref ? { storageProfileHref } : {}),
    ...(sizingPolicy ? { sizingPolicy } : {}),
    ...(placementPolicy ? { placementPolicy } : {}),
  };
}

/** One recompose adding `items`; a NIC can only use a network the vApp bridges, so any missing join too. */
export async function recompose(
  connection: Connection,
  ovdc: string,
  vapp: VAppRecord,
  items: readonly NewVm[],
): Promise<Task> {
  const missing = [...new Set(items.flatMap((i) => i.networks))].filter((n) => !vapp.networks.includes(n));
  const newVAppNetworks = missing.length > 0 ? await connection.directory.networks(ovdc, missing) : [];
  return createVms(connection.vcd, vapp.href, items, newVAppNetworks);
}

/** What a sender's turn did: its own task (absent when older machines filled the batch), and the batch. */
export interface Sent {
  task?: Task;
  batch: WaitingVm[];
}

/** What {@link CreateBatches} works with. */
export interface CreateBatchesDeps {
  locks: VAppLocks;
  /** The task's status record, stamped now. */
  record: (task: Task, operation: string) => NonNullable<MachineScope['status']['task']>;
  /** How soon a waiting machine looks again at most (its recheck, jitter included). */
  lookMs: number;
  /** How soon a machine with a task looks at it. */
  pollMs: number;
  /** The most VMs in one recompose. */
  cap?: number;
  /** Brings a machine's next reconcile forward. */
  wake: (machine: string) => void;
}

/** The reconciler's side of {@link VAppBatches}: waiting, sending, and taking what others sent. */
export class CreateBatches {
  private readonly batches: VAppBatches;

  constructor(
    clock: ConstructorParameters<typeof VAppBatches>[0],
    private readonly deps: CreateBatchesDeps,
  ) {
    this.batches = new VAppBatches(clock, deps.cap);
  }

  /**
   * Takes what another machine's batch left this machine: its task becomes the machine's recorded
   * task (so it is polled as its own), a refusal is thrown (its condition and backoff follow).
   */
  claim(s: MachineScope, vappKey: string): boolean {
    const outcome = this.batches.claim(s.key);
    if (!outcome) return false;
    if ('error' in outcome) throw outcome.error;
    if (s.status.task) return false; // a task of its own already runs (a restart cannot bring both)
    s.status.task = outcome.task;
    // Its VM is being made: no longer a machine without one, whose looks any lock would leave out.
    this.deps.locks.decided(s.key, { kind: 'WaitForTask' }, false);
    this.deps.locks.hold(vappKey, s.key, outcome.task.operation, this.deps.pollMs, outcome.task.href);
    s.log.info({ vm: s.status.vmName, batch: outcome.size }, 'VM created in a batch recompose');
    return true;
  }

  /** The vApp may be idle now (`machine`'s task on it ended): its oldest waiting machine looks, and sends. */
  nudge(vappKey: string, machine: string): void {
    if (!this.deps.locks.idle(vappKey)) return;
    const next = this.batches.oldest(vappKey, machine);
    if (next) this.deps.wake(next);
  }

  /** The machine found the vApp busy without its VM: it waits in the next batch. */
  async wait(s: MachineScope, t: Target, vmMarker: string, why: string): Promise<MachineStep> {
    const item = await vmItem(t, s.vcdMachine.spec, vmMarker);
    const count = this.batches.join(t.vappKey, s.key, item, this.deps.lookMs);
    // The VM is asked for from here on: a delete must look in VCD before it lets the machine go.
    s.status.vmName = t.vmName;
    return {
      kind: 'WaitForVCD',
      reason: 'VAppBusy',
      message: `${why}; the VM joins the vApp's next recompose (${count} waiting)`,
    };
  }

  /** The machine found the vApp idle without its VM: it sends the next batch (itself in it, unless older ones fill it). */
  async send(s: MachineScope, t: Target, vapp: VAppRecord, vmMarker: string): Promise<Sent> {
    const item = await vmItem(t, s.vcdMachine.spec, vmMarker);
    const present = new Set(vapp.vms.map((v) => v.name));
    const batch = this.batches.take(t.vappKey, { machine: s.key, item, lookMs: this.deps.lookMs }, present);
    if (batch.length === 0) return { batch };
    let task: Task;
    try {
      task = await recompose(
        t.connection,
        t.placement.ovdc,
        vapp,
        batch.map((b) => b.item),
      );
    } catch (err) {
      this.batches.refused(batch, s.key, err);
      if (batch.some((b) => b.machine === s.key)) throw err;
      return { batch };
    }
    const ref = this.deps.record(task, 'CreateVM');
    this.batches.sent(batch, s.key, ref);
    // Every member's task locks the vApp: looks that could only find it busy are left out.
    for (const b of batch) {
      this.deps.locks.hold(t.vappKey, b.machine, 'CreateVM', this.deps.pollMs, ref.href);
      if (b.machine !== s.key) this.deps.wake(b.machine); // to take the task now, not at its next recheck
    }
    // Left out (older machines filled the batch), the sender still waits in the vApp's queue.
    return batch.some((b) => b.machine === s.key) ? { task, batch } : { batch };
  }

  /** `machine` is deleted or has its VM: nothing of it waits or is sent. */
  forget(vappKey: string, machine: string): void {
    this.batches.forget(vappKey, machine);
  }
}
