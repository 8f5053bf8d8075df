/**
 * The latest read of each cluster vApp within this process, for the machines whose look it may
 * stand for ({@link mayShareRead}). Turns on a vApp are taken one at a time (see VAppTurns), so a
 * read is never made beside another of the same vApp; a vApp-wide write of ours drops it.
 */
import type { Clock } from '@capstan/runtime';
import { mayShareRead } from '../decide/vapp-read.js';
import type { VcdClient } from '../vcd/client.js';
import type { VAppRecord } from '../vcd/vapp.js';
import { readVApp } from './inputs.js';
import type { Target } from './target.js';

/** How long a read may stand for a sibling's: about the time a batch's members take their turns. */
export const SHARED_READ_MS = 2_000;

interface Read {
  vapp: VAppRecord;
  startedAt: number;
  /** The session it was read on: another cluster's credentials might see otherwise. */
  vcd: VcdClient;
}

/** What a machine's look needs (see {@link mayShareRead}). */
export interface Look {
  vmName: string;
  deleting: boolean;
  freshAfter: number;
}

/** Per vApp key, the latest read, shared while it may stand for a sibling's own. */
export class VAppReads {
  private readonly latest = new Map<string, Read>();

  constructor(
    private readonly clock: Clock,
    readonly maxAgeMs = SHARED_READ_MS,
  ) {}

  /** `t`'s vApp for `look`: the latest read when it may stand for this machine's own, else one GET now. */
  look(t: Pick<Target, 'vappKey' | 'connection' | 'placement' | 'vappName'>, look: Look) {
    return this.share(t.vappKey, t.connection.vcd, look, () =>
      readVApp(t.connection, t.placement.ovdc, t.vappName),
    );
  }

  /** The vApp for `look`: the latest read when it may stand for this machine's own, else `read` now. */
  async share(
    vappKey: string,
    vcd: VcdClient,
    look: Look,
    read: () => Promise<VAppRecord | undefined>,
  ): Promise<VAppRecord | undefined> {
    const now = this.clock.now();
    const kept = this.latest.get(vappKey);
    const need = { ...look, now, maxAgeMs: this.maxAgeMs };
    if (
      kept?.vcd === vcd &&
      mayShareRead(kept.startedAt, { ...need, vmInRead: holds(kept.vapp, look.vmName) })
    )
      return kept.vapp;
    const vapp = await read();
    for (const [key, r] of this.latest) if (now - r.startedAt > this.maxAgeMs) this.latest.delete(key);
    if (vapp) this.latest.set(vappKey, { vapp, startedAt: now, vcd });
    else this.latest.delete(vappKey);
    return vapp;
  }

  /** A write of ours changed the vApp as a whole (or took a VM out): no read made before stands. */
  changed(vappKey: string): void {
    this.latest.delete(vappKey);
  }

  /** vApps with a read kept (for tests). */
  get size(): number {
    return this.latest.size;
  }
}

const holds = (vapp: VAppRecord, vmName: string) => vapp.vms.some((v) => v.name === vmName);
