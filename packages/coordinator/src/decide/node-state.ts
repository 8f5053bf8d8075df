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
import { coordinatorKeys, FALSE, type Protocol, parseTimestamp, TRUE } from '@capstan/reboot-protocol';
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
  /** Failed and set aside by the failure policy: outside the budget and the queue. */
  setAside: boolean;
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
  /** Since when the node waits for its hook annotations (scheduled, or verified and back). */
  hookWaitSince: number | undefined;
  /** Since when the released node has been Ready and schedulable (its settle time). */
  settlingSince: number | undefined;
}

/** Reads the facts of a node from its (possibly edited) annotations and labels. */
export function readFacts(
  node: NodeSnapshot,
  annotations: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
  protocol: Protocol,
): NodeFacts {
  const a = protocol.annotations;
  // A flag is set only when it reads exactly "true" (garbage reads as false: `readFlag`).
  const needed = annotations[a.rebootNeeded] === TRUE;
  const paused = annotations[a.rebootPaused] === TRUE;
  const inProgress = annotations[a.rebootInProgress] === TRUE;
  const rebootOk = annotations[a.rebootOk] === TRUE;
  const scheduled = labels[protocol.labels.beforeReboot] === TRUE;
  const afterLabel = labels[protocol.labels.afterReboot] === TRUE;
  const marked =
    annotations[coordinatorKeys.grantedAt] !== undefined ||
    annotations[coordinatorKeys.grantedBootId] !== undefined;
  const failed = annotations[coordinatorKeys.failed] !== undefined;
  const setAside = failed && annotations[coordinatorKeys.setAside] !== undefined;
  const asking = needed && !paused && !setAside;
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
  // A set-aside node is out of its group: neither in flight nor counted, whatever it does.
  const inFlight = !setAside && ((phase !== 'Idle' && phase !== 'Asking') || failed || inProgress);
  const grantedBootId = annotations[coordinatorKeys.grantedBootId];
  return {
    phase,
    needed,
    asking,
    inProgress,
    failed,
    setAside,
    inFlight,
    unavailableBecause,
    counts: !setAside && (inFlight || unavailableBecause.length > 0),
    ready,
    requestedAt: parseTimestamp(annotations[coordinatorKeys.requestedAt]),
    grantedAt: parseTimestamp(annotations[coordinatorKeys.grantedAt]),
    grantedBootId: isUsableBootId(grantedBootId) ? grantedBootId : undefined,
    rebootedAt: parseTimestamp(annotations[coordinatorKeys.rebootedAt]),
    hookWaitSince: parseTimestamp(annotations[coordinatorKeys.hookWaitSince]),
    settlingSince: parseTimestamp(annotations[coordinatorKeys.settlingSince]),
  };
}

/** The facts of frozen snapshots, beside them: a snapshot never changes, so neither do they. */
const frozenFacts = new WeakMap<NodeSnapshot, { protocol: Protocol; facts: NodeFacts }>();

/**
 * The facts of a snapshot before any edit. A frozen snapshot (the planner keeps one beside each
 * cached Node) has them read once and kept, frozen too: most nodes of a fleet are idle round
 * after round, and reading their timestamps again each round was ~14 % of the coordinator's CPU.
 */
export function snapshotFacts(node: NodeSnapshot, protocol: Protocol): NodeFacts {
  const read = () => readFacts(node, node.annotations ?? {}, node.labels ?? {}, protocol);
  if (!Object.isFrozen(node)) return read();
  const kept = frozenFacts.get(node);
  if (kept?.protocol === protocol) return kept.facts;
  const facts = read();
  Object.freeze(facts.unavailableBecause);
  frozenFacts.set(node, { protocol, facts: Object.freeze(facts) });
  return facts;
}

/**
 * A node with the planner's pending edits; turns into a {@link NodeWrite}. The snapshot's maps are
 * copied on the first edit only, and its facts are read again only after an edit: most nodes of a
 * fleet are idle and a round reads their facts many times.
 */
export class NodeDraft {
  readonly actions: PlannedAction[] = [];
  /** The facts of the snapshot, before any edit. */
  readonly initialFacts: NodeFacts;
  /** Whether the node counted against its budget before any edit. */
  readonly countedBefore: boolean;
  private ann: Record<string, string>;
  private lab: Record<string, string>;
  private ownAnnotations = false;
  private ownLabels = false;
  private current: NodeFacts | undefined;

  constructor(
    readonly node: NodeSnapshot,
    readonly protocol: Protocol,
  ) {
    this.ann = (node.annotations ?? {}) as Record<string, string>;
    this.lab = (node.labels ?? {}) as Record<string, string>;
    this.initialFacts = snapshotFacts(node, protocol);
    this.current = this.initialFacts;
    this.countedBefore = this.initialFacts.counts;
  }

  get name(): string {
    return this.node.name;
  }

  /** The annotations with the pending edits (read only: edit through the methods). */
  get annotations(): Readonly<Record<string, string>> {
    return this.ann;
  }

  /** The labels with the pending edits (read only: edit through the methods). */
  get labels(): Readonly<Record<string, string>> {
    return this.lab;
  }

  /** Whether any edit was made (one that was undone again still counts). */
  get edited(): boolean {
    return this.ownAnnotations || this.ownLabels;
  }

  facts(): NodeFacts {
    this.current ??= readFacts(this.node, this.ann, this.lab, this.protocol);
    return this.current;
  }

  private editAnnotations(): Record<string, string> {
    if (!this.ownAnnotations) {
      this.ann = { ...this.ann };
      this.ownAnnotations = true;
    }
    this.current = undefined;
    return this.ann;
  }

  private editLabels(): Record<string, string> {
    if (!this.ownLabels) {
      this.lab = { ...this.lab };
      this.ownLabels = true;
    }
    this.current = undefined;
    return this.lab;
  }

  setAnnotation(key: string, value: string): void {
    this.editAnnotations()[key] = value;
  }

  removeAnnotation(key: string): void {
    if (Object.hasOwn(this.ann, key)) delete this.editAnnotations()[key];
  }

  removeAnnotations(keys: readonly string[]): void {
    for (const k of keys) this.removeAnnotation(k);
  }

  setLabel(key: string, value: string): void {
    this.editLabels()[key] = value;
  }

  removeLabel(key: string): void {
    if (Object.hasOwn(this.lab, key)) delete this.editLabels()[key];
  }

  /** Withdraws `reboot-ok` the way the protocol spells it; no edit when already withdrawn. */
  withdrawRebootOk(): void {
    const key = this.protocol.annotations.rebootOk;
    const value = this.ann[key];
    if (value === undefined || value === FALSE) return;
    if (this.protocol.withdraw === 'false') this.setAnnotation(key, FALSE);
    else this.removeAnnotation(key);
  }

  record(action: PlannedAction): void {
    if (!this.actions.includes(action)) this.actions.push(action);
  }

  /** The write that turns the snapshot into this draft, or `undefined` when nothing changed. */
  toWrite(): NodeWrite | undefined {
    if (!this.edited) return undefined;
    const before = this.node.annotations ?? {};
    const beforeLabels = this.node.labels ?? {};
    const setAnnotations: Record<string, string> = {};
    const setLabels: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.ann)) if (before[k] !== v) setAnnotations[k] = v;
    for (const [k, v] of Object.entries(this.lab)) if (beforeLabels[k] !== v) setLabels[k] = v;
    const removeAnnotations = Object.keys(before).filter((k) => !Object.hasOwn(this.ann, k));
    const removeLabels = Object.keys(beforeLabels).filter((k) => !Object.hasOwn(this.lab, k));
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
