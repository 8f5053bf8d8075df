/**
 * Reboot windows: when new reboots may start. Evaluated in the window's own time zone with
 * `Intl`, so daylight saving time is the time zone database's business, not ours.
 */

import type { RebootGroupSpecWindowsItem } from './generated/reboot-group.js';

/** Days of the week as windows name them. */
export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

/** A day of the week. */
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * A recurring window. It opens at `start` on each of `days` (local time in `timeZone`) and closes
 * at `end`; when `end` is earlier than `start` it closes on the next day (it crosses midnight),
 * and `days` still names the day it opens. `start` is inside, `end` is not. Generated from the
 * CRD, which lists the same days as {@link WEEKDAYS}.
 */
export type RebootWindow = RebootGroupSpecWindowsItem;

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after midnight of an `HH:MM` string; `undefined` when it is not one. */
export function parseClock(raw: unknown): number | undefined {
  if (typeof raw !== 'string') return undefined;
  const m = HHMM.exec(raw);
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterFor(timeZone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        weekday: 'short',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
    } catch {
      f = null;
    }
    if (formatters.size < 1000) formatters.set(timeZone, f);
  }
  return f;
}

/** Whether `timeZone` is an IANA name this runtime knows. */
export function isKnownTimeZone(timeZone: unknown): boolean {
  return typeof timeZone === 'string' && timeZone.length <= 64 && formatterFor(timeZone) !== null;
}

/** Local weekday and minutes after midnight at `now` in `timeZone`; `undefined` for an unknown zone. */
export function localClock(now: number, timeZone: string): { day: Weekday; minutes: number } | undefined {
  const f = formatterFor(timeZone);
  if (!f || !Number.isFinite(now)) return undefined;
  let day: string | undefined;
  let hour = Number.NaN;
  let minute = Number.NaN;
  for (const part of f.formatToParts(now)) {
    if (part.type === 'weekday') day = part.value;
    else if (part.type === 'hour') hour = Number(part.value) % 24;
    else if (part.type === 'minute') minute = Number(part.value);
  }
  if (!WEEKDAYS.includes(day as Weekday) || !Number.isFinite(hour) || !Number.isFinite(minute))
    return undefined;
  return { day: day as Weekday, minutes: hour * 60 + minute };
}

function previousDay(day: Weekday): Weekday {
  return WEEKDAYS[(WEEKDAYS.indexOf(day) + 6) % 7] as Weekday;
}

/**
 * Whether `window` is open at `now` (ms since the epoch). A malformed window (bad clock, unknown
 * time zone, start equal to end) is never open: the planner fails closed and reports it.
 */
export function isWindowOpen(window: RebootWindow, now: number): boolean {
  const start = parseClock(window.start);
  const end = parseClock(window.end);
  if (start === undefined || end === undefined || start === end) return false;
  const local = localClock(now, window.timeZone ?? 'UTC');
  if (!local) return false;
  const days = Array.isArray(window.days) && window.days.length > 0 ? window.days : WEEKDAYS;
  if (start < end) return days.includes(local.day) && local.minutes >= start && local.minutes < end;
  // Crosses midnight: the evening part belongs to today, the morning part to yesterday's window.
  if (local.minutes >= start) return days.includes(local.day);
  return local.minutes < end && days.includes(previousDay(local.day));
}

/** Whether any of `windows` is open at `now`; no windows means always open. */
export function isWithinWindows(windows: readonly RebootWindow[] | undefined, now: number): boolean {
  if (!windows || windows.length === 0) return true;
  return windows.some((w) => w !== null && typeof w === 'object' && isWindowOpen(w, now));
}
