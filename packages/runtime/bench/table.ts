/** One row of the bench's table: Capstan against the baseline, the ratio, and its target. */
export interface Row {
  name: string;
  ours: string;
  base: string;
  ratio: number;
  /**
   * The ratio must be at most (`<=`) or at least (`>=`) `limit`; `info` rows have no target and
   * show where a targeted row's figure goes.
   */
  goal: '<=' | '>=' | 'info';
  limit: number;
  /** What the baseline is, e.g. `controller-runtime v0.23.3`. */
  against: string;
  /**
   * Of the alternated pairs of runs, how many met the target on their own (`met`, of `of`): how
   * far a median ratio near its limit can be trusted when single runs vary more than the margin.
   */
  pairs?: { met: number; of: number };
}

/** A row whose target is an absolute figure (footprint, planner, protocol): no baseline. */
export interface AbsoluteRow {
  name: string;
  value: number;
  unit: string;
  /** The value must be below (`<`) or at most (`<=`) `limit`; `info` rows have no target. */
  goal: '<' | '<=' | 'info';
  limit: number;
  /** e.g. `median` or `p99` */
  statistic: string;
  /** Why an `info` row has no target. */
  why?: string;
}

export const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export const percentile = (xs: readonly number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

/** Whether `ratio` meets a target of `goal` `limit`. */
const within = (ratio: number, goal: '<=' | '>=', limit: number): boolean =>
  goal === '<=' ? ratio <= limit : ratio >= limit;

/**
 * Of the pairs (`ours[i]`, `base[i]`), alternated runs, how many meet the target on their own:
 * `ours / base` within `goal` `limit`.
 */
export function pairsMeeting(
  ours: readonly number[],
  base: readonly number[],
  goal: '<=' | '>=',
  limit: number,
): { met: number; of: number } {
  const of = Math.min(ours.length, base.length);
  let count = 0;
  for (let i = 0; i < of; i++) {
    if (within((ours[i] as number) / (base[i] as number), goal, limit)) count++;
  }
  return { met: count, of };
}

export const met = (r: Row): boolean => r.goal === 'info' || within(r.ratio, r.goal, r.limit);

export const absoluteMet = (a: AbsoluteRow): boolean =>
  a.goal === 'info' || (a.goal === '<' ? a.value < a.limit : a.value <= a.limit);

/** The table as text; a row that misses its target is marked. */
export function formatTable(rows: readonly Row[], absolute: readonly AbsoluteRow[]): string {
  // The name column fits the longest name (36 at least, so the usual table keeps its layout).
  const width = Math.max(36, ...[...rows, ...absolute].map((r) => r.name.length + 2));
  const lines = [
    `${'benchmark'.padEnd(width)}${'capstan'.padStart(12)}${'baseline'.padStart(12)}${'ratio'.padStart(9)}   target`,
  ];
  for (const r of rows) {
    const mark = met(r) ? '' : '   << NOT met';
    const pairs = r.pairs ? `, met by ${r.pairs.met}/${r.pairs.of} pairs` : '';
    const target =
      r.goal === 'info' ? '(no target)' : `${r.goal} ${r.limit.toFixed(2)}x ${r.against}${pairs}${mark}`;
    lines.push(
      `${r.name.padEnd(width)}${r.ours.padStart(12)}${r.base.padStart(12)}${r.ratio.toFixed(2).padStart(8)}x   ${target}`,
    );
  }
  for (const a of absolute) {
    const mark = absoluteMet(a) ? '' : '   << NOT met';
    const value = `${a.value.toFixed(a.value < 100 ? 1 : 0)} ${a.unit}`;
    const target =
      a.goal === 'info' ? `(no target${a.why ? `: ${a.why}` : ''})` : `${a.goal} ${a.limit} ${a.unit}`;
    lines.push(
      `${a.name.padEnd(width)}${value.padStart(12)}${''.padStart(21)}   ${a.statistic} ${target}${mark}`,
    );
  }
  return lines.join('\n');
}
