/**
 * The cluster's VM anti-affinity rules, as pure functions: which rules the machines call for
 * ({@link desiredAffinityRules}) and the one write that brings VCD closer ({@link decideAffinity}).
 *
 * 1. Opt-in per group (`spec.antiAffinity.controlPlane`, `.machineDeployments`): one rule per group
 *    and VDC (a rule holds VMs of one VDC), named from namespace, cluster and group, so a lost
 *    status or `clusterctl move` finds it again.
 * 2. Members are the VMs (by URN) of the group's machines that have one and are not leaving. VCD
 *    refuses a rule of fewer than two VMs: a group of one has no rule, and a rule whose group
 *    shrinks to one is deleted.
 * 3. A machine leaving is taken out before its VM is deleted (the machine waits for it), and the
 *    rules go with the cluster or when the option is turned off.
 * 4. A write only when VCD differs from the desired rule (members, mandatory, enabled, polarity):
 *    a converged cluster makes none. Only rules that are ours are touched: recorded in status, or
 *    named as one of the cluster's groups.
 */
import { createHash } from 'node:crypto';

/** How strongly a group is kept apart: VCD's `IsMandatory` true (Required) or false (Preferred). */
export type AntiAffinityMode = 'Required' | 'Preferred';

/** `spec.antiAffinity`. */
export interface AntiAffinitySpec {
  controlPlane?: AntiAffinityMode;
  machineDeployments?: AntiAffinityMode;
}

/** Which group a machine belongs to: the control plane, a MachineDeployment, or neither. */
export type MachineGroup = { controlPlane: true } | { machineDeployment: string };

/** A machine as the decision sees it. */
export interface AffinityMachine {
  group?: MachineGroup;
  /** The VDC its VM is in. */
  ovdc: string;
  /** Its VM's URN, once it has one. */
  vm?: string;
  /** Being deleted (its Machine or VCDMachine): out of every rule. */
  leaving: boolean;
}

/** A rule as it should be in VCD. Members sorted. */
export interface DesiredRule {
  name: string;
  ovdc: string;
  mandatory: boolean;
  members: string[];
}

/** A rule as VCD shows it. */
export interface SeenRule {
  id: string;
  name: string;
  ovdc: string;
  href: string;
  enabled: boolean;
  mandatory: boolean;
  polarity: string;
  members: string[];
}

export type AffinityStep =
  | { kind: 'CreateRule'; rule: DesiredRule }
  | { kind: 'UpdateRule'; seen: SeenRule; rule: DesiredRule }
  | { kind: 'DeleteRule'; seen: SeenRule }
  | { kind: 'Converged' };

/** VCD names are at most 128 characters: a longer name keeps its start and a hash of the whole. */
const MAX_NAME = 128;

/** The rule's name for a group of the cluster. */
export function affinityRuleName(namespace: string, cluster: string, group: MachineGroup): string {
  const suffix = 'controlPlane' in group ? 'controlplane' : `md-${group.machineDeployment}`;
  const name = `capvcd-${namespace}-${cluster}-${suffix}`;
  if (name.length <= MAX_NAME) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10);
  return `${name.slice(0, MAX_NAME - hash.length - 1)}-${hash}`;
}

const modeOf = (spec: AntiAffinitySpec | undefined, group: MachineGroup) =>
  'controlPlane' in group ? spec?.controlPlane : spec?.machineDeployments;

/** Where a rule lives: its VDC and name. */
const keyOf = (r: { ovdc: string; name: string }) => `${r.ovdc}\u0000${r.name}`;

/**
 * The rules the machines call for: per opted-in group and VDC, the VMs of machines not leaving,
 * when there are at least two (VCD's minimum). None while the cluster is deleted.
 */
export function desiredAffinityRules(
  spec: AntiAffinitySpec | undefined,
  names: { namespace: string; cluster: string },
  machines: AffinityMachine[],
  deleting: boolean,
): DesiredRule[] {
  if (deleting) return [];
  const rules = new Map<string, DesiredRule>();
  for (const m of machines) {
    if (!m.group || !m.vm || m.leaving) continue;
    const mode = modeOf(spec, m.group);
    if (!mode) continue;
    const name = affinityRuleName(names.namespace, names.cluster, m.group);
    const key = keyOf({ ovdc: m.ovdc, name });
    const rule = rules.get(key) ?? { name, ovdc: m.ovdc, mandatory: mode === 'Required', members: [] };
    if (!rule.members.includes(m.vm)) rule.members.push(m.vm);
    rules.set(key, rule);
  }
  return [...rules.values()]
    .filter((r) => r.members.length >= 2)
    .map((r) => ({ ...r, members: [...r.members].sort() }))
    .sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
}

/** The names of every group the machines form (leaving or not, opted in or not): rules of these names are ours. */
export function groupRuleNames(names: { namespace: string; cluster: string }, machines: AffinityMachine[]) {
  return new Set(
    machines.flatMap((m) => (m.group ? [affinityRuleName(names.namespace, names.cluster, m.group)] : [])),
  );
}

const sameMembers = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** Whether VCD's rule already is the desired one. */
export const ruleConverged = (seen: SeenRule, rule: DesiredRule): boolean =>
  seen.enabled &&
  seen.polarity === 'Anti-Affinity' &&
  seen.mandatory === rule.mandatory &&
  sameMembers(seen.members, rule.members);

/**
 * The next write, or `Converged`. `ours`: which of the seen rules this cluster may touch (recorded
 * ids, or named as one of its groups). Deletes first (a leaving machine may wait on them), then
 * updates, then creates; one rule per name and VDC (a duplicate of ours is deleted). Pure.
 */
export function decideAffinity(
  desired: DesiredRule[],
  seen: SeenRule[],
  ours: (rule: SeenRule) => boolean,
): AffinityStep {
  const wanted = new Map(desired.map((r) => [keyOf(r), r]));
  const mine = seen.filter(ours).sort((a, b) => keyOf(a).localeCompare(keyOf(b)) || a.id.localeCompare(b.id));
  const kept = new Map<string, SeenRule>();
  for (const rule of mine) {
    const key = keyOf(rule);
    if (!wanted.has(key) || kept.has(key)) return { kind: 'DeleteRule', seen: rule };
    kept.set(key, rule);
  }
  for (const [key, rule] of kept) {
    const want = wanted.get(key) as DesiredRule;
    if (!ruleConverged(rule, want)) return { kind: 'UpdateRule', seen: rule, rule: want };
  }
  const missing = desired.find((r) => !kept.has(keyOf(r)));
  return missing ? { kind: 'CreateRule', rule: missing } : { kind: 'Converged' };
}
