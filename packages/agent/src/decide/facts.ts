/**
 * What every phase reads off the node (the protocol flags, the grant's fence), and the node edits
 * they share: the status report, the end of a cycle, the difference between a target and the node.
 */
import {
  AGENT_DRAIN_STARTED_ANNOTATION,
  AGENT_SOURCE_ERROR_ANNOTATION,
  coordinatorKeys,
  FALSE,
  type Protocol,
  TRUE,
} from '@capstan/reboot-protocol';
import type { AgentMemory, AgentView, Decision, DecisionConfig, NodeFacts, NodePatch } from '../api/types.js';

/** The protocol flags of a node. */
export interface GrantFacts {
  ok: boolean;
  needed: boolean;
  inProgress: boolean;
  agentMade: boolean;
  /** `coordinatorKeys.grantedBootId`, if written. */
  grantedBootId: string | undefined;
  /** ok, and the grant is not fenced to another boot (no granted boot id, or it is the current one). */
  grantForThisBoot: boolean;
  /** ok, and fenced to exactly this boot (proof that no reboot happened since the grant). */
  grantFencedToThisBoot: boolean;
}

/** Reads the protocol flags; anything but the string "true" is false. */
export function grantFacts(node: NodeFacts, protocol: Protocol): GrantFacts {
  const a = node.annotations;
  const k = protocol.annotations;
  const ok = a[k.rebootOk] === TRUE;
  const grantedBootId = a[coordinatorKeys.grantedBootId];
  const fencedHere = grantedBootId !== undefined && grantedBootId !== '' && grantedBootId === node.bootID;
  return {
    ok,
    needed: a[k.rebootNeeded] === TRUE,
    inProgress: a[k.rebootInProgress] === TRUE,
    agentMade: a[k.agentMadeUnschedulable] === TRUE,
    grantedBootId,
    grantForThisBoot: ok && (grantedBootId === undefined || fencedHere),
    grantFencedToThisBoot: ok && fencedHere,
  };
}

/** What a phase decides from: the view, the memory, the settings and the node's flags. */
export interface PhaseInput {
  view: AgentView;
  memory: AgentMemory;
  config: DecisionConfig;
  grant: GrantFacts;
}

/** A phase's answer: a decision, or only a change of memory after which the agent decides again. */
export type PhaseStep = Decision | { settle: AgentMemory };

/** Splits the node's pods for a drain (the runtime's rules, shared with the coordinator). */
export { drainPlan } from '@capstan/runtime';

/** A label value Kubernetes accepts (≤ 63 chars, alphanumerics with `-_.` inside), or undefined. */
export function labelValue(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  return raw.length <= 63 && /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/.test(raw) ? raw : undefined;
}

/** The drain state forgotten: a new cycle starts its drain (and its eviction and reboot backoffs) afresh. */
export function resetDrain(memory: AgentMemory): AgentMemory {
  const { drainStartedAt: _d, nextEvictionAt: _n, rebootFailures: _r, ...rest } = memory;
  return { ...rest, blockedRounds: 0 };
}

/** The status annotations and labels the agent maintains, with `reboot-needed` as given. */
export function reportTarget(view: AgentView, protocol: Protocol, needed: boolean): NodePatch {
  const k = protocol.annotations;
  const l = protocol.labels;
  const s = view.source;
  const annotations: Record<string, string | null> = {
    [k.rebootNeeded]: needed ? TRUE : FALSE,
    [AGENT_SOURCE_ERROR_ANNOTATION]: view.sourceError ?? null,
  };
  const labels: Record<string, string | null> = { [l.rebootNeeded]: needed ? TRUE : FALSE };
  if (s?.status !== undefined) annotations[k.status] = s.status;
  if (s?.newVersion !== undefined) annotations[k.newVersion] = s.newVersion;
  if (s?.lastCheckedTime !== undefined) annotations[k.lastCheckedTime] = BigInt(s.lastCheckedTime).toString();
  if (view.os) {
    labels[l.id] = labelValue(view.os.id) ?? null;
    labels[l.version] = labelValue(view.os.version) ?? null;
  }
  return { annotations, labels };
}

/**
 * Ends a cycle: in-progress false, and the cordon lifted only if the agent made it and the node is
 * not set aside (a set-aside node stays cordoned until an administrator clears it).
 */
export function endCycle(node: NodeFacts, f: GrantFacts, protocol: Protocol): NodePatch | undefined {
  const k = protocol.annotations;
  const lift = f.agentMade && !isSetAside(node);
  return diff(node, {
    annotations: {
      [k.rebootInProgress]: FALSE,
      [AGENT_DRAIN_STARTED_ANNOTATION]: null,
      ...(lift ? { [k.agentMadeUnschedulable]: FALSE } : {}),
    },
    labels: {},
    ...(lift && node.unschedulable ? { unschedulable: false } : {}),
  });
}

/** Whether the coordinator set the node aside: its cordon stays until the failure is cleared. */
export function isSetAside(node: NodeFacts): boolean {
  return node.annotations[coordinatorKeys.setAside] !== undefined;
}

/** The part of `target` that differs from the node, or undefined when nothing does. */
export function diff(node: NodeFacts, target: NodePatch): NodePatch | undefined {
  const annotations = changed(node.annotations, target.annotations);
  const labels = changed(node.labels, target.labels);
  const patch: NodePatch = { annotations, labels };
  const cordon = target.unschedulable !== undefined && target.unschedulable !== node.unschedulable;
  if (cordon) patch.unschedulable = target.unschedulable;
  const any = cordon || Object.keys(annotations).length > 0 || Object.keys(labels).length > 0;
  return any ? patch : undefined;
}

function changed(
  current: Readonly<Record<string, string>>,
  target: Readonly<Record<string, string | null>>,
): Record<string, string | null> {
  const edits: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(target)) {
    if ((current[key] ?? null) !== value) edits[key] = value;
  }
  return edits;
}

/**
 * A decision to write `patch`; when it newly reports that the source cannot tell, with a
 * Warning event saying why (once per message, not once per poll).
 */
export function patchDecision(
  phase: Decision['phase'],
  why: string,
  patch: NodePatch,
  memory: AgentMemory,
): Decision {
  const sourceError = patch.annotations[AGENT_SOURCE_ERROR_ANNOTATION];
  const event =
    typeof sourceError === 'string'
      ? { type: 'Warning' as const, reason: 'SourceError', action: 'CheckRebootNeeded', note: sourceError }
      : undefined;
  return { phase, why, action: { kind: 'patch', patch, ...(event ? { event } : {}) }, memory };
}
