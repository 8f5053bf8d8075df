/**
 * A group's calendar: when new reboots may start. The weekly `windows` (`reboot-window.ts`),
 * cron-style `cronWindows` (e.g. the second Tuesday of a month, read with croner in the window's
 * time zone) and `blackouts` (periods in which nothing starts, whatever the windows say). Pure:
 * the same spec and instant give the same answer. A malformed cron window is never open and a
 * malformed blackout never ends early: the group fails closed (and `validation.ts` reports it).
 *
 * Time zones: a cron schedule is read in local time of `timeZone` (IANA, default UTC) by croner,
 * through `Intl`; on the day daylight saving time skips an hour, a time inside the gap opens the
 * window at the first instant after it; when an hour repeats, the window opens once.
 */
import { readDuration } from '@capstan/runtime';
import { Cron } from 'croner';
import type {
  RebootGroupSpecBlackoutsItem,
  RebootGroupSpecCronWindowsItem,
} from './generated/reboot-group.js';
import type { RebootGroupSpec } from './reboot-group.js';
import { isWithinWindows } from './reboot-window.js';

/** A cron-style window: opens at each time `schedule` names (in `timeZone`), open for `duration`. */
export type CronWindow = RebootGroupSpecCronWindowsItem;

/** A period in which no reboot starts: `start` inclusive, `end` exclusive (RFC 3339 instants). */
export type Blackout = RebootGroupSpecBlackoutsItem;

const schedules = new Map<string, Cron | null>();

/** The compiled schedule, or `null` when croner refuses the expression or the time zone. */
function scheduleOf(expression: unknown, timeZone: unknown): Cron | null {
  if (typeof expression !== 'string' || (timeZone !== undefined && typeof timeZone !== 'string')) return null;
  const key = `${timeZone ?? 'UTC'}\u0000${expression}`;
  let cron = schedules.get(key);
  if (cron === undefined) {
    try {
      cron = new Cron(expression, { timezone: (timeZone as string | undefined) ?? 'UTC', paused: true });
      // croner checks the time zone only when it computes a time.
      cron.nextRun(new Date(0));
    } catch {
      cron = null;
    }
    if (schedules.size < 1000) schedules.set(key, cron);
  }
  return cron;
}

/** Why a cron window is unusable (its `schedule`, `timeZone` or `duration`), by field. */
export function cronWindowProblems(window: unknown): { field: string; message: string }[] {
  if (typeof window !== 'object' || window === null) return [{ field: '', message: 'must be an object' }];
  const w = window as Record<string, unknown>;
  const problems: { field: string; message: string }[] = [];
  if (typeof w.timeZone === 'string' && scheduleOf('0 0 * * *', w.timeZone) === null) {
    problems.push({ field: 'timeZone', message: `unknown IANA time zone ${JSON.stringify(w.timeZone)}` });
  } else if (scheduleOf(w.schedule, w.timeZone) === null) {
    problems.push({ field: 'schedule', message: 'must be a cron expression like "0 2 * * TUE#2"' });
  }
  const ms = readDuration(w.duration);
  if (ms === undefined || ms <= 0) {
    problems.push({ field: 'duration', message: 'must be a positive duration like "4h"' });
  }
  return problems;
}

/** Whether `window` is open at `now`: a time it names lies in (now − duration, now]. */
export function isCronWindowOpen(window: CronWindow, now: number): boolean {
  const cron = scheduleOf(window.schedule, window.timeZone);
  const duration = readDuration(window.duration);
  if (!cron || duration === undefined || duration <= 0 || !Number.isFinite(now)) return false;
  // nextRun is strictly after its argument: the first time in (now − duration, …).
  const opened = cron.nextRun(new Date(now - duration))?.getTime();
  return opened !== undefined && opened <= now;
}

/** The instants of a blackout, or `undefined` when it is malformed (end not after start). */
export function blackoutSpan(blackout: unknown): { start: number; end: number } | undefined {
  if (typeof blackout !== 'object' || blackout === null) return undefined;
  const { start, end } = blackout as Record<string, unknown>;
  const s = typeof start === 'string' ? Date.parse(start) : Number.NaN;
  const e = typeof end === 'string' ? Date.parse(end) : Number.NaN;
  return Number.isFinite(s) && Number.isFinite(e) && e > s ? { start: s, end: e } : undefined;
}

/** The blackout `now` falls in, if any. A malformed one holds for ever (fail closed). */
export function activeBlackout(blackouts: readonly unknown[] | undefined, now: number): Blackout | undefined {
  for (const b of blackouts ?? []) {
    const span = blackoutSpan(b);
    if (!span || (now >= span.start && now < span.end)) return b as Blackout;
  }
  return undefined;
}

/** Whether new reboots may start at `now`, and the blackout that forbids it, if one does. */
export function calendarAt(
  spec: Pick<RebootGroupSpec, 'windows' | 'cronWindows' | 'blackouts'>,
  now: number,
): { open: boolean; blackout?: Blackout } {
  const blackout = activeBlackout(Array.isArray(spec.blackouts) ? spec.blackouts : undefined, now);
  if (blackout) return { open: false, blackout };
  const weekly = Array.isArray(spec.windows) ? spec.windows : [];
  const cron = Array.isArray(spec.cronWindows) ? spec.cronWindows : [];
  if (weekly.length === 0 && cron.length === 0) return { open: true };
  const open =
    (weekly.length > 0 && isWithinWindows(weekly, now)) ||
    cron.some((w) => w !== null && typeof w === 'object' && isCronWindowOpen(w, now));
  return { open };
}
