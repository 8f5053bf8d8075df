/**
 * A node's place in the reboot cycle, derived from its annotations and labels alone, and a draft
 * of the edits the planner makes to it.
 *
 * The cycle: Idle → Asking (agent says reboot-needed, not paused; we stamp requested-at) →
 * Scheduled (before-reboot label; a slot of the budget is taken) → Granted (reboot-ok, granted
 * boot ID and time) → AfterHooks (reboot verified: boot ID changed, Ready, agent done;
 * after-reboot label) → Returning (reboot-ok withdrawn; waiting for Ready and uncordoned) → Idle
 * (grant records cleared, rebooted-at stamped). The failure marker is orthogonal to the phase.
 */
import {
  coordinatorKeys,
  FALSE,
  type Protocol,
  parseTimestamp,
  readFlag,
  TRUE,
} from '@capstan/reboot-protocol';
import type { NodeSnapshot } from './node-snapshot.js';
import type { NodeWrite, PlannedAction } from './node-write.js';

/** Where a node is in its reboot cycle. */
export type NodePhase = 'Idle' | 'Asking' | 'Scheduled' | 'Granted' | 'AfterHooks' | 'Returning';

const MAX_BOOT_ID = 256;

/** Whether a boot ID is usable for fencing. */
export function isUsableBootId(id: string | undefined): id is string {
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_BOOT_ID;
}

/** The facts about a node the rules need. */
export interface NodeFacts {
  phase: NodePhase;
  /** `reboot-needed` is `"true"`. */
  needed: boolean;
  /** Needed and not paused by an admin. */
  asking: boolean;
  inProgress: boolean;
  failed: boolean;
  /**
   * Scheduled, granted, rebooting, not yet released or back, marked failed, or the agent says it
   * is rebooting.
   */
  inFlight: boolean;
  /** Why the node is unavailable apart from its reboot cycle (NotReady, cordoned, pressure). */
  unavailableBecause: string[];
  /** Counts against its group's budget: in flight or unavailable. */
  counts: boolean;
  ready: boolean;
  requestedAt: number | undefined;
  grantedAt: number | undefined;
  grantedBootId: string | undefined;
  rebootedAt: number | undefined;
}

/** Reads the facts of a node from its (possibly edited) annotations and labels. */
export function readFacts(
  node: NodeSnapshot,
  annotations: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
  protocol: Protocol,
): NodeFacts {
  const a = protocol.annotations;
  const needed = readFlag(annotations, a.rebootNeeded).value;
  const paused = readFlag(annotations, a.rebootPaused).value;
  const inProgress = readFlag(annotations, a.rebootInProgress).value;
  const rebootOk = readFlag(annotations, a.rebootOk).value;
  const scheduled = labels[protocol.labels.beforeReboot] === TRUE;
  const afterLabel = labels[protocol.labels.afterReboot] === TRUE;
  const marked =
    annotations[coordinatorKeys.grantedAt] !== undefined ||
    annotations[coordinatorKeys.grantedBootId] !== undefined;
  const failed = annotations[coordinatorKeys.failed] !== undefined;
  const asking = needed && !paused;
  const phase: NodePhase = afterLabel
    ? 'AfterHooks'
    : rebootOk
      ? 'Granted'
      : marked
        ? 'Returning'
        : scheduled
          ? 'Scheduled'
          : asking
            ? 'Asking'
            : 'Idle';
  const ready = node.conditions?.Ready === 'True';
  const unavailableBecause: string[] = [];
  if (!ready) unavailableBecause.push('NotReady');
  if (node.unschedulable) unavailableBecause.push('Unschedulable');
  if (node.conditions?.DiskPressure === 'True') unavailableBecause.push('DiskPressure');
  if (node.conditions?.NetworkUnavailable === 'True') unavailableBecause.push('NetworkUnavailable');
  const inFlight = (phase !== 'Idle' && phase !== 'Asking') || failed || inProgress;
  const grantedBootId = annotations[coordinatorKeys.grantedBootId];
  return {
    phase,
    needed,
    asking,
    inProgress,
    failed,
    inFlight,
    unavailableBecause,
    counts: inFlight || unavailableBecause.length > 0,
    ready,
    requestedAt: parseTimestamp(annotations[coordinatorKeys.requestedAt]),
    grantedAt: parseTimestamp(annotations[coordinatorKeys.grantedAt]),
    grantedBootId: isUsableBootId(grantedBootId) ? grantedBootId : undefined,
    rebootedAt: parseTimestamp(annotations[coordinatorKeys.rebootedAt]),
  };
}

/** A node with the planner's pending edits; turns into a {@link NodeWrite}. */
export class NodeDraft {
  readonly annotations: Record<string, string>;
  readonly labels: Record<string, string>;
  readonly actions: PlannedAction[] = [];
  /** Whether the node counted against its budget before any edit. */
  readonly countedBefore: boolean;

  constructor(
    readonly node: NodeSnapshot,
    readonly protocol: Protocol,
  ) {
    this.annotations = { ...(node.annotations ?? {}) };
    this.labels = { ...(node.labels ?? {}) };
    this.countedBefore = this.facts().counts;
  }

  get name(): string {
    return this.node.name;
  }

  facts(): NodeFacts {
    return readFacts(this.node, this.annotations, this.labels, this.protocol);
  }

  setAnnotation(key: string, value: string): void {
    this.annotations[key] = value;
  }

  removeAnnotation(key: string): void {
    delete this.annotations[key];
  }

  removeAnnotations(keys: readonly string[]): void {
    for (const k of keys) delete this.annotations[k];
  }

  setLabel(key: string, value: string): void {
    this.labels[key] = value;
  }

  removeLabel(key: string): void {
    delete this.labels[key];
  }

  /** Withdraws `reboot-ok` the way the protocol spells it; no edit when already withdrawn. */
  withdrawRebootOk(): void {
    const key = this.protocol.annotations.rebootOk;
    const value = this.annotations[key];
    if (value === undefined || value === FALSE) return;
    if (this.protocol.withdraw === 'false') this.annotations[key] = FALSE;
    else delete this.annotations[key];
  }

  record(action: PlannedAction): void {
    if (!this.actions.includes(action)) this.actions.push(action);
  }

  /** The write that turns the snapshot into this draft, or `undefined` when nothing changed. */
  toWrite(): NodeWrite | undefined {
    const before = this.node.annotations ?? {};
    const beforeLabels = this.node.labels ?? {};
    const setAnnotations: Record<string, string> = {};
    const setLabels: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.annotations)) if (before[k] !== v) setAnnotations[k] = v;
    for (const [k, v] of Object.entries(this.labels)) if (beforeLabels[k] !== v) setLabels[k] = v;
    const removeAnnotations = Object.keys(before).filter((k) => !Object.hasOwn(this.annotations, k));
    const removeLabels = Object.keys(beforeLabels).filter((k) => !Object.hasOwn(this.labels, k));
    if (
      Object.keys(setAnnotations).length +
        Object.keys(setLabels).length +
        removeAnnotations.length +
        removeLabels.length ===
      0
    ) {
      return undefined;
    }
    return {
      node: this.node.name,
      resourceVersion: this.node.resourceVersion,
      setAnnotations,
      removeAnnotations,
      setLabels,
      removeLabels,
      consumesBudget: !this.countedBefore && this.facts().counts,
      actions: this.actions.length > 0 ? [...this.actions] : ['Normalized'],
    };
  }
}
