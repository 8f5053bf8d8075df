/** Durations as Kubernetes and Go write them (`"30m"`, `"1h30m"`, `"90s"`, `"1.5h"`). */

const DURATION = /^(\d+(\.\d+)?(ms|h|m|s))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** Parses a duration into milliseconds; `undefined` when it is not one (never throws). */
export function parseDuration(raw: unknown): number | undefined {
  if (typeof raw !== 'string' || raw.length > 64 || !DURATION.test(raw)) return undefined;
  let total = 0;
  for (const [, amount, unit] of raw.matchAll(PART)) {
    total += Number(amount) * (UNIT_MS[unit as string] ?? Number.NaN);
  }
  return Number.isFinite(total) ? Math.round(total) : undefined;
}
