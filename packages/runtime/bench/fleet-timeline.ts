/**
 * Where a rollout's rounds go, from the fleet observer's watch (issue 48): for each node the
 * moments it was granted, went down, came back with its new boot and was out of flight again,
 * and for each grant after a group's first round how long its slot stood free before it (the
 * coordinator's part: from the node that freed it to the grant). What is not the reboot itself
 * is a round's overhead; the medians say whose it is.
 */

/** What a node was seen doing, in ms since the epoch. */
interface NodeMoments {
  group: string;
  granted?: number;
  /** Cordoned after its grant (the agent's first write). */
  cordoned?: number;
  down?: number;
  up?: number;
  /** Back, its agent says it asks no more and is not rebooting. */
  agentBack?: number;
  /** Back, its reboot-ok withdrawn (the coordinator's release). */
  released?: number;
  /** Released and uncordoned (the agent's last write). */
  uncordoned?: number;
  done?: number;
}

/** Medians of a rollout's phases, in ms (undefined: never seen). */
export interface PhaseMedians {
  /** Granted to NotReady: the agent's cordon and drain, and the reboot's start. */
  grantToDown?: number;
  /** NotReady to Ready with its new boot: the reboot (its down time and the node's return). */
  downToUp?: number;
  /** Back to out of flight: the agent's uncordon and ending, the coordinator's release. */
  upToDone?: number;
  /** A freed slot to its next grant in the same group: the coordinator's round. */
  freeToGrant?: number;
  /** The steps inside grant→down and up→done, in order (`cordon`, `drain+down`, `agent back`, ...). */
  steps: Record<string, number | undefined>;
  /** grant→down and up→done of the first and the last five groups (the later read more fresh). */
  byGroupRank: Record<string, number | undefined>;
  /** Grants seen, and those counted in `freeToGrant`. */
  grants: number;
  refills: number;
}

const median = (xs: number[]): number | undefined => {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Records each node's moments as the observer sees them. */
export class FleetTimeline {
  private readonly nodes = new Map<string, NodeMoments>();
  /** Per group, when each slot was freed (a node's done), oldest first, not yet refilled. */
  private readonly freed = new Map<string, number[]>();
  private readonly refills: number[] = [];

  /** A node seen: `granted` holds a grant, `ready` its Ready, `rebooted` runs a new boot, `out` is out of flight. */
  see(
    name: string,
    group: string,
    seen: {
      granted: boolean;
      ready: boolean;
      rebooted: boolean;
      out: boolean;
      cordoned?: boolean;
      asking?: boolean;
      rebootOk?: boolean;
    },
    now = Date.now(),
  ): void {
    const m = this.nodes.get(name) ?? { group };
    this.seeSteps(m, seen, now);
    this.nodes.set(name, m);
    if (seen.granted && m.granted === undefined) {
      m.granted = now;
      const slot = this.freed.get(group)?.shift();
      if (slot !== undefined) this.refills.push(now - slot);
    }
    if (m.granted !== undefined && !seen.ready && m.down === undefined) m.down = now;
    if (m.down !== undefined && seen.ready && seen.rebooted && m.up === undefined) m.up = now;
    if (m.up !== undefined && seen.out && m.done === undefined) {
      m.done = now;
      const list = this.freed.get(group) ?? [];
      list.push(now);
      this.freed.set(group, list);
    }
  }

  private seeSteps(
    m: NodeMoments,
    seen: { cordoned?: boolean; asking?: boolean; rebootOk?: boolean },
    now: number,
  ): void {
    if (m.granted !== undefined && seen.cordoned && m.cordoned === undefined) m.cordoned = now;
    if (m.up === undefined) return;
    if (seen.asking === false && m.agentBack === undefined) m.agentBack = now;
    if (seen.rebootOk === false && m.released === undefined) m.released = now;
    if (m.released !== undefined && seen.cordoned === false && m.uncordoned === undefined) m.uncordoned = now;
  }

  /**
   * The time outside the rounds: from `startMs` (every node asked) to the first grant, and from
   * each group's last node done to the next group's first grant (`order`: the groups in order).
   */
  edges(order: readonly string[], startMs: number): { firstGrantMs?: number; changesMs: number[] } {
    const first = new Map<string, number>();
    const last = new Map<string, number>();
    for (const m of this.nodes.values()) {
      if (m.granted !== undefined) first.set(m.group, Math.min(first.get(m.group) ?? m.granted, m.granted));
      if (m.done !== undefined) last.set(m.group, Math.max(last.get(m.group) ?? m.done, m.done));
    }
    const changesMs: number[] = [];
    for (let i = 1; i < order.length; i++) {
      const done = last.get(order[i - 1] as string);
      const next = first.get(order[i] as string);
      if (done !== undefined && next !== undefined) changesMs.push(next - done);
    }
    const firstGrant = Math.min(...first.values());
    return { ...(Number.isFinite(firstGrant) ? { firstGrantMs: firstGrant - startMs } : {}), changesMs };
  }

  private byGroupRank(
    order: readonly string[],
    span: (from: keyof NodeMoments, to: keyof NodeMoments, of?: NodeMoments[]) => number | undefined,
  ): Record<string, number | undefined> {
    const all = [...this.nodes.values()];
    const first = new Set(order.slice(0, 5));
    const last = new Set(order.slice(-5));
    const early = all.filter((m) => first.has(m.group));
    const late = all.filter((m) => last.has(m.group));
    return {
      'grant→down, first 5 groups': span('granted', 'down', early),
      'grant→down, last 5': span('granted', 'down', late),
      'up→done, first 5': span('up', 'done', early),
      'up→done, last 5': span('up', 'done', late),
    };
  }

  /** The phases' medians over every node seen through them (`order`: the groups in order). */
  medians(order: readonly string[] = []): PhaseMedians {
    const all = [...this.nodes.values()];
    const span = (from: keyof NodeMoments, to: keyof NodeMoments, of = all) =>
      median(
        of.flatMap((m) => {
          const a = m[from];
          const b = m[to];
          return typeof a === 'number' && typeof b === 'number' ? [b - a] : [];
        }),
      );
    return {
      grantToDown: span('granted', 'down'),
      downToUp: span('down', 'up'),
      upToDone: span('up', 'done'),
      freeToGrant: median(this.refills),
      steps: {
        cordon: span('granted', 'cordoned'),
        'drain+down': span('cordoned', 'down'),
        'agent back': span('up', 'agentBack'),
        released: span('agentBack', 'released'),
        uncordoned: span('released', 'uncordoned'),
        'out of flight': span('uncordoned', 'done'),
      },
      byGroupRank: this.byGroupRank(order, span),
      grants: all.filter((m) => m.granted !== undefined).length,
      refills: this.refills.length,
    };
  }
}

/** The step medians' line for the bench's log. */
export function formatSteps(p: PhaseMedians): string {
  const s = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(2)} s`);
  const list = (r: Record<string, number | undefined>) =>
    Object.entries(r)
      .map(([k, v]) => `${k} ${s(v)}`)
      .join(', ');
  return `median steps: ${list(p.steps)}; ${list(p.byGroupRank)}`;
}

/** One line for the bench's log. */
export function formatPhases(p: PhaseMedians): string {
  const s = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(2)} s`);
  return (
    `median phases: grant→down ${s(p.grantToDown)}, down→up ${s(p.downToUp)}, up→done ${s(p.upToDone)}, ` +
    `freed slot→next grant ${s(p.freeToGrant)} (${p.refills} of ${p.grants} grants)`
  );
}
