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

/**
 * Why `maxFailed` is unusable, or `undefined` when it is fine: an integer ≥ 0 or a percentage
 * string from `0%` to `100%` (absent means 1).
 */
export function maxFailedProblem(maxFailed: unknown): string | undefined {
  if (maxFailed === undefined) return undefined;
  if (typeof maxFailed === 'number') {
    return Number.isSafeInteger(maxFailed) && maxFailed >= 0 ? undefined : 'must be an integer ≥ 0';
  }
  if (typeof maxFailed === 'string' && PERCENT.test(maxFailed)) return undefined;
  return 'must be an integer ≥ 0 or a percentage like "10%"';
}

/**
 * Resolves `maxFailed` against a group of `nodeCount` nodes: a count as is, a percentage rounded
 * down (possibly 0). Absent means 1; unusable values resolve to 0 (fail closed: the caller
 * reports them and the group holds anyway).
 */
export function resolveMaxFailed(maxFailed: unknown, nodeCount: number): number {
  if (maxFailed === undefined) return 1;
  if (maxFailedProblem(maxFailed) !== undefined) return 0;
  if (typeof maxFailed === 'number') return maxFailed;
  return Math.floor((Math.max(0, nodeCount) * Number((maxFailed as string).slice(0, -1))) / 100);
}
