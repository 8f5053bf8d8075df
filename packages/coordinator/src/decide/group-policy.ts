/**
 * Groups as the planner uses them: each `RebootGroup` spec resolved once (timeout, hooks,
 * validity), the default group for nodes no selector matches, and which node belongs where.
 */

import { RESERVED_PREFIXES } from '@capstan/reboot-protocol';
import { isJsonObject, labelSelectorFromSpec, readDuration } from '@capstan/runtime';
import type { RebootGroupSpec } from '../api/reboot-group.js';
import { type RebootGroupProblem, validateRebootGroupSpec } from '../api/validation.js';
import type { Finding } from './finding.js';
import type { NodeSnapshot } from './node-snapshot.js';

/** Hook timeout of groups that set none: 30 minutes. */
export const DEFAULT_HOOK_TIMEOUT_MS = 30 * 60_000;

/** A group's policy as input to the planner: the resource's name and spec. */
export interface NamedRebootGroup {
  name: string;
  spec: RebootGroupSpec;
}

/** A group's spec resolved for planning. */
export interface GroupPolicy {
  name: string;
  spec: RebootGroupSpec;
  order: number;
  grantTimeoutMs: number;
  /** How long a node may hold a slot waiting for its before- or after-reboot annotations. */
  hookTimeoutMs: number;
  /** How long a rebooted node stays Ready and schedulable before its slot frees. */
  settleTimeMs: number;
  beforeHooks: string[];
  afterHooks: string[];
  paused: boolean;
  /** Problems that make the group hold (no new schedules or grants). */
  problems: RebootGroupProblem[];
  /** The group was made from options because no `RebootGroup` has the default group's name. */
  virtual: boolean;
  /** The selector can be evaluated. */
  selectorUsable: boolean;
  /** The spec is missing or not an object: the group selects no node at all. */
  selectsNothing: boolean;
  /**
   * The node selector, compiled once per round; `undefined` when the group selects nothing or its
   * selector is unusable.
   */
  selector: ReturnType<typeof labelSelectorFromSpec>;
  /** The before- and after-reboot hook annotations, each once. */
  hookKeys: string[];
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];
}

/** Resolves a spec (any JSON: garbage is a problem, never an exception). */
export function resolveGroup(
  name: string,
  spec: RebootGroupSpec,
  defaultGrantTimeoutMs: number,
  virtual: boolean,
  reservedPrefixes: readonly string[] = RESERVED_PREFIXES,
): GroupPolicy {
  const problems = validateRebootGroupSpec(spec);
  const selectsNothing = !isJsonObject(spec);
  const safe = (typeof spec === 'object' && spec !== null ? spec : {}) as RebootGroupSpec;
  const beforeHooks = stringList(safe.beforeRebootAnnotations);
  const afterHooks = stringList(safe.afterRebootAnnotations);
  for (const [field, hooks] of [
    ['beforeRebootAnnotations', beforeHooks],
    ['afterRebootAnnotations', afterHooks],
  ] as const) {
    for (const hook of hooks) {
      if (reservedPrefixes.some((p) => hook.startsWith(p))) {
        problems.push({ path: `spec.${field}`, message: `${hook} is a protocol key, not a hook annotation` });
      }
    }
  }
  const timeout = readDuration(safe.grantTimeout);
  const hookTimeout = readDuration(safe.hookTimeout);
  const settleTime = readDuration(safe.settleTime);
  const selectorUsable = !problems.some((p) => p.path.startsWith('spec.nodeSelector'));
  const selector = selectsNothing || !selectorUsable ? undefined : labelSelectorFromSpec(safe.nodeSelector);
  return {
    name,
    spec: safe,
    order: Number.isSafeInteger(safe.order) ? (safe.order as number) : 0,
    grantTimeoutMs: timeout !== undefined && timeout > 0 ? timeout : defaultGrantTimeoutMs,
    hookTimeoutMs: hookTimeout !== undefined && hookTimeout > 0 ? hookTimeout : DEFAULT_HOOK_TIMEOUT_MS,
    settleTimeMs: settleTime !== undefined && settleTime > 0 ? settleTime : 0,
    beforeHooks,
    afterHooks,
    paused: safe.paused === true,
    problems,
    virtual,
    selectorUsable,
    selectsNothing,
    selector,
    hookKeys: [...new Set([...beforeHooks, ...afterHooks])],
  };
}

/** Orders groups: lower `order` first, then by name. */
export function byOrder(a: GroupPolicy, b: GroupPolicy): number {
  return a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * Assigns every node to one group: the first (by order, then name) whose selector matches, else
 * the default group. The default group takes exactly the nodes no other group selects (its own
 * selector, if any, is not consulted), so it never counts as a second match. A group without a
 * usable spec selects nothing. Reports a node matched by several groups on each of them.
 */
export function assignNodes(
  nodes: readonly NodeSnapshot[],
  groups: readonly GroupPolicy[],
  defaultGroup: GroupPolicy,
  findings: Finding[],
): Map<string, NodeSnapshot[]> {
  const members = new Map<string, NodeSnapshot[]>();
  for (const g of groups) members.set(g.name, []);
  members.set(defaultGroup.name, members.get(defaultGroup.name) ?? []);
  const candidates = [...groups].sort(byOrder).filter((g) => g !== defaultGroup && g.selector);
  // Membership depends only on the values of the labels some selector reads: decided once per
  // combination of those values (a handful in a fleet), not once per node and group.
  const keys = [...new Set(candidates.flatMap((g) => g.selector?.requirements.map((r) => r.key) ?? []))];
  const decided = new Map<string, { home: GroupPolicy; matched: GroupPolicy[] | undefined }>();
  for (const node of nodes) {
    const labels = node.labels ?? {};
    const signature = labelSignature(labels, keys);
    let decision = decided.get(signature);
    if (decision === undefined) {
      const all = candidates.filter((g) => g.selector?.matches(labels));
      decision = { home: all[0] ?? defaultGroup, matched: all.length > 1 ? all : undefined };
      decided.set(signature, decision);
    }
    const { home, matched } = decision;
    if (matched) {
      // Reported on every group that selects it: the others' selectors show it, their budgets don't.
      const names = matched.map((g) => g.name).join(', ');
      for (const g of matched) {
        findings.push({
          kind: 'NodeInSeveralGroups',
          severity: 'Warning',
          node: node.name,
          group: g.name,
          message:
            g === home
              ? `node ${node.name} matches groups ${names}; it joins ${home.name}`
              : `node ${node.name} matches groups ${names}; it joins ${home.name} and is not counted in ${g.name}`,
        });
      }
    }
    members.get(home.name)?.push(node);
  }
  return members;
}

/** The values of `keys` in `labels`, unambiguously (length-prefixed; `-` for a missing label). */
function labelSignature(labels: Readonly<Record<string, string>>, keys: readonly string[]): string {
  let signature = '';
  for (const k of keys) {
    const v = Object.hasOwn(labels, k) ? labels[k] : undefined;
    signature += v === undefined ? '-' : `${v.length}:${v}`;
  }
  return signature;
}

/** The groups of a round: each spec resolved once, duplicates reported and dropped, the default group added. */
export function resolveGroups(
  input: readonly NamedRebootGroup[],
  defaults: { name: string; spec: RebootGroupSpec; grantTimeoutMs: number },
  findings: Finding[],
): { groups: GroupPolicy[]; defaultGroup: GroupPolicy } {
  const groups: GroupPolicy[] = [];
  for (const g of input) {
    if (groups.some((o) => o.name === g.name)) {
      findings.push({
        kind: 'DuplicateGroup',
        severity: 'Warning',
        group: g.name,
        message: `two groups are named ${g.name}; the second is ignored`,
      });
      continue;
    }
    groups.push(resolveGroup(g.name, g.spec, defaults.grantTimeoutMs, false));
  }
  let defaultGroup = groups.find((g) => g.name === defaults.name);
  if (!defaultGroup) {
    const spec = { ...defaults.spec };
    delete spec.nodeSelector;
    defaultGroup = resolveGroup(defaults.name, spec, defaults.grantTimeoutMs, true);
    groups.push(defaultGroup);
  }
  for (const g of groups) {
    if (g.problems.length > 0) {
      findings.push({
        kind: 'InvalidGroup',
        severity: 'Warning',
        group: g.name,
        message: `group ${g.name} is invalid and grants nothing new: ${g.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      });
    }
  }
  return { groups, defaultGroup };
}
