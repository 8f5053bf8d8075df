/**
 * The agent's flag-value parsers: each turns one command-line value into what the flag holds, or
 * throws a usage error commander reports as such (exit 2, the flag named).
 */
import { formatDuration, MAX_TIMER_DELAY_MS, parseDuration } from '@capstan/runtime';

/** A usage error commander reports as such (what commander's InvalidArgumentError carries). */
export function invalid(message: string): Error {
  return Object.assign(new Error(message), { code: 'commander.invalidArgument', exitCode: 2 });
}

/** One of `allowed`, or a usage error listing them. */
export const choice =
  <T extends string>(allowed: readonly T[], flag: string) =>
  (value: string): T => {
    if (!(allowed as readonly string[]).includes(value)) {
      throw invalid(`${flag} must be one of ${allowed.join(', ')}; got "${value}"`);
    }
    return value as T;
  };

/** The bounds of a duration flag; every one has a longest value (a timer waits at most that). */
interface DurationBounds {
  /** Shortest value; default 0. */
  minMs?: number;
  /** Also accept exactly -1s ("each pod's own", as kubectl's --grace-period=-1). */
  minusOne?: boolean;
}

/**
 * A duration flag's parser: a Go duration within bounds, at most {@link MAX_TIMER_DELAY_MS}
 * (about 24.8 days: beyond it a timer would not wait but spin), or a usage error saying so.
 */
export const duration =
  (flag: string, bounds: DurationBounds = {}) =>
  (value: string): string => {
    let ms: number;
    try {
      ms = parseDuration(value);
    } catch (err) {
      throw invalid(`${flag}: ${(err as Error).message}`);
    }
    if (bounds.minusOne && ms === -1000) return value;
    const min = bounds.minMs ?? 0;
    if (ms < min)
      throw invalid(
        `${flag} ${value} is too short: at least ${formatDuration(min)}${bounds.minusOne ? ' (or -1s)' : ''}`,
      );
    if (ms > MAX_TIMER_DELAY_MS)
      throw invalid(
        `${flag} ${value} is too long: at most ${formatDuration(MAX_TIMER_DELAY_MS)} (about 24.8 days, the longest delay a timer keeps)`,
      );
    return value;
  };

/** A list of exit codes (`1` or `0,77`), each 0-255. */
export const exitCodes =
  (flag: string) =>
  (value: string): number[] => {
    const codes = value.split(',').map((c) => c.trim());
    if (codes.some((c) => !/^\d{1,3}$/.test(c) || Number(c) > 255))
      throw invalid(`${flag} must be exit codes 0-255 separated by commas; got "${value}"`);
    return codes.map(Number);
  };

/** A whole number within [min, max] (no more digits than `max` has), or a usage error naming the flag. */
export const wholeNumber =
  (flag: string, min: number, max: number, message = `must be ${min}-${max}`) =>
  (v: string): number => {
    if (!/^\d+$/.test(v) || v.length > String(max).length || Number(v) < min || Number(v) > max)
      throw invalid(`${flag} ${message}; got "${v}"`);
    return Number(v);
  };
