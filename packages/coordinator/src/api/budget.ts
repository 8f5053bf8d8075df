/** The budget of a group: how many of its nodes may be unavailable at once. */

const PERCENT = /^(100|[1-9]?\d)%$/;

/**
 * Why `maxUnavailable` is unusable, or `undefined` when it is fine. Accepts an integer ≥ 1 or a
 * percentage string from `0%` to `100%` (absent means 1).
 */
export function maxUnavailableProblem(maxUnavailable: unknown): string | undefined {
  if (maxUnavailable === undefined) return undefined;
  if (typeof maxUnavailable === 'number') {
    return Number.isSafeInteger(maxUnavailable) && maxUnavailable >= 1 ? undefined : 'must be an integer ≥ 1';
  }
  if (typeof maxUnavailable === 'string' && PERCENT.test(maxUnavailable)) return undefined;
  return 'must be an integer ≥ 1 or a percentage like "25%"';
}

/**
 * Resolves `maxUnavailable` against a group of `nodeCount` nodes: a count as is, a percentage
 * rounded down; never less than 1, so a single-node group still gets its reboot. Unusable values
 * resolve to 1 (the caller reports them).
 */
export function resolveBudget(maxUnavailable: unknown, nodeCount: number): number {
  if (maxUnavailableProblem(maxUnavailable) !== undefined || maxUnavailable === undefined) return 1;
  if (typeof maxUnavailable === 'number') return maxUnavailable;
  const percent = Number((maxUnavailable as string).slice(0, -1));
  return Math.max(1, Math.floor((Math.max(0, nodeCount) * percent) / 100));
}
