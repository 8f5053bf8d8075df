/**
 * Which Alertmanager silences the coordinator wants, pure: one per node holding a grant (from its
 * grant until its slot frees), for that node's alerts (the group's matchers with `$NODE` filled
 * in), ending a step ahead of now and extended while the node is in flight, never past its grant
 * plus the group's maximum duration; the coordinator's silences of nodes no longer in flight are
 * expired.
 */

/** A matcher of Alertmanager's v2 API. */
export interface SilenceMatcher {
  name: string;
  value: string;
  isRegex: boolean;
  isEqual: boolean;
}

/** One matcher as a group writes it. */
export interface MatcherSpec {
  name: string;
  value: string;
  operator?: string;
}

/** A node that holds a grant, with its group's silence settings. */
export interface SilencedNode {
  node: string;
  group: string;
  grantedAt: number;
  matchers: readonly MatcherSpec[];
  maxDurationMs: number;
}

/** A silence the coordinator made earlier, as Alertmanager lists it (active or pending only). */
export interface OwnSilence {
  id: string;
  node: string;
  endsAt: number;
}

/** What to do to Alertmanager. */
export type SilenceAction =
  | { kind: 'create'; node: string; group: string; matchers: SilenceMatcher[]; endsAt: number }
  | { kind: 'extend'; id: string; node: string; group: string; matchers: SilenceMatcher[]; endsAt: number }
  | { kind: 'expire'; id: string; node: string };

/** How far ahead a silence ends; it is extended once less than half of this is left. */
export const SILENCE_STEP_MS = 10 * 60_000;

/** The name of the comment marking the coordinator's silences, and naming the node. */
export const silenceComment = (node: string, group: string): string =>
  `capstan reboot: node=${node} group=${group}`;

/** `$NODE` filled in; escaped as a regular expression for the regex operators. */
export function matchersFor(node: string, specs: readonly MatcherSpec[]): SilenceMatcher[] {
  return specs.map((m) => {
    const op = m.operator ?? '=';
    const isRegex = op === '=~' || op === '!~';
    const filled = isRegex ? node.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : node;
    return {
      name: m.name,
      value: m.value.split('$NODE').join(filled),
      isRegex,
      isEqual: !op.startsWith('!'),
    };
  });
}

/** The actions that bring Alertmanager's silences to what the in-flight nodes need. */
export function planSilences(
  wanted: readonly SilencedNode[],
  existing: readonly OwnSilence[],
  now: number,
): SilenceAction[] {
  const actions: SilenceAction[] = [];
  const byNode = new Map<string, OwnSilence[]>();
  for (const s of existing) byNode.set(s.node, [...(byNode.get(s.node) ?? []), s]);
  for (const w of wanted) {
    const cap = w.grantedAt + w.maxDurationMs;
    const endsAt = Math.min(now + SILENCE_STEP_MS, cap);
    const own = byNode.get(w.node) ?? [];
    byNode.delete(w.node);
    const [keep, ...extra] = [...own].sort((a, b) => b.endsAt - a.endsAt);
    for (const s of extra) actions.push({ kind: 'expire', id: s.id, node: w.node });
    if (endsAt <= now) {
      // Past its cap: the silence is over, however long the reboot takes.
      if (keep && keep.endsAt > now) actions.push({ kind: 'expire', id: keep.id, node: w.node });
      continue;
    }
    const matchers = matchersFor(w.node, w.matchers);
    if (!keep) actions.push({ kind: 'create', node: w.node, group: w.group, matchers, endsAt });
    else if (keep.endsAt - now < SILENCE_STEP_MS / 2 && endsAt > keep.endsAt)
      actions.push({ kind: 'extend', id: keep.id, node: w.node, group: w.group, matchers, endsAt });
  }
  for (const [node, own] of byNode) for (const s of own) actions.push({ kind: 'expire', id: s.id, node });
  return actions;
}
