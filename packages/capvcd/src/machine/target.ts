/**
 * Where a machine's VM lives in VCD (its site, VDC, vApp and name), or why it has no place: what
 * the machine reconciler's normal and delete paths resolve first.
 */
import type { IpAllocationMode } from '../decide/nics.js';
import type { Connection } from '../vcd/connections.js';
import type { Placement } from './placement.js';

/** Where a machine's VM lives in VCD, and the keys its vApp's turns and locks go by. */
export interface Target {
  connection: Connection;
  placement: Placement;
  vmName: string;
  vappName: string;
  /** VAppTurns' and VAppLocks' key of the vApp (the machine's is its scope's `key`). */
  vappKey: string;
  /** Each NIC's allocation mode, and a MANUAL NIC's claimed address, for the VM's creation. */
  addressing?: Array<{ mode: IpAllocationMode; ip?: string }>;
}

/** Why a machine's VM cannot be named or placed. */
export interface Unplaceable {
  reason: string;
  message: string;
}
