/**
 * What the CRD schema cannot refuse: unknown time zones, windows that start when they end, unsound
 * selectors, unparsable timeouts. Also re-checks what the schema does refuse, because objects
 * written before the schema (or with validation off) reach the coordinator too. The reconciler
 * turns the problems into the group's `Valid` condition; the planner holds an invalid group.
 */
import { isJsonObject, readDuration, selectorProblems } from '@capstan/runtime';
import { maxFailedProblem, maxUnavailableProblem } from './budget.js';
import { healthGateProblems, silenceProblems } from './gate-validation.js';
import { notificationProblems } from './notification-validation.js';
import { blackoutSpan, cronWindowProblems } from './reboot-calendar.js';
import { isKnownTimeZone, parseClock, WEEKDAYS } from './reboot-window.js';

/** One problem with a `RebootGroup`: where (a field path) and what. */
export interface RebootGroupProblem {
  path: string;
  message: string;
}

function annotationListProblems(list: unknown, path: string): RebootGroupProblem[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) return [{ path, message: 'must be a list of annotation keys' }];
  const problems: RebootGroupProblem[] = [];
  list.forEach((key: unknown, i) => {
    if (typeof key !== 'string' || key === '' || key.length > 317) {
      problems.push({ path: `${path}[${i}]`, message: 'must be a non-empty annotation key' });
    }
  });
  return problems;
}

/** The problems of a label selector at `path`, each with its own field path. */
function selectorProblemsAt(selector: unknown, path: string): RebootGroupProblem[] {
  return selectorProblems(selector, path).map((text) => {
    const [at, ...rest] = text.split(': ');
    return { path: at as string, message: rest.join(': ') };
  });
}

/** Problems with `spec.windows`: each an object with HH:MM start and end, a known zone, weekdays. */
function windowsProblems(windows: unknown): RebootGroupProblem[] {
  if (windows === undefined) return [];
  if (!Array.isArray(windows)) return [{ path: 'spec.windows', message: 'must be a list' }];
  const problems: RebootGroupProblem[] = [];
  windows.forEach((w: unknown, i) => {
    const at = `spec.windows[${i}]`;
    if (!isJsonObject(w)) {
      problems.push({ path: at, message: 'must be an object' });
      return;
    }
    const start = parseClock(w.start);
    const end = parseClock(w.end);
    if (start === undefined)
      problems.push({ path: `${at}.start`, message: 'must be HH:MM (00:00 to 23:59)' });
    if (end === undefined) problems.push({ path: `${at}.end`, message: 'must be HH:MM (00:00 to 23:59)' });
    if (start !== undefined && start === end) {
      problems.push({ path: at, message: 'start equals end: the window would be empty' });
    }
    if (w.timeZone !== undefined && !isKnownTimeZone(w.timeZone)) {
      problems.push({
        path: `${at}.timeZone`,
        message: `unknown IANA time zone ${JSON.stringify(w.timeZone)}`,
      });
    }
    if (w.days === undefined) return;
    if (!Array.isArray(w.days)) {
      problems.push({ path: `${at}.days`, message: 'must be a list of days' });
      return;
    }
    w.days.forEach((d: unknown, j) => {
      if (!WEEKDAYS.includes(d as never)) {
        problems.push({ path: `${at}.days[${j}]`, message: `must be one of ${WEEKDAYS.join(', ')}` });
      }
    });
  });
  return problems;
}

/** Problems with a group's spec (field paths start at `spec`); empty when it is usable. */
export function validateRebootGroupSpec(spec: unknown): RebootGroupProblem[] {
  if (!isJsonObject(spec)) return [{ path: 'spec', message: 'must be an object' }];
  const problems: RebootGroupProblem[] = [];
  problems.push(...selectorProblemsAt(spec.nodeSelector, 'spec.nodeSelector'));
  if (spec.gates !== undefined && !isJsonObject(spec.gates)) {
    problems.push({ path: 'spec.gates', message: 'must be an object' });
  } else if (spec.gates !== undefined) {
    problems.push(...selectorProblemsAt(spec.gates.blockingPods, 'spec.gates.blockingPods'));
    problems.push(...healthGateProblems(spec.gates));
  }
  problems.push(...silenceProblems(spec.silences));
  const budget = maxUnavailableProblem(spec.maxUnavailable);
  if (budget) problems.push({ path: 'spec.maxUnavailable', message: budget });
  if (spec.order !== undefined && !Number.isSafeInteger(spec.order)) {
    problems.push({ path: 'spec.order', message: 'must be an integer' });
  }
  problems.push(...windowsProblems(spec.windows));
  problems.push(...calendarProblems(spec));
  problems.push(...annotationListProblems(spec.beforeRebootAnnotations, 'spec.beforeRebootAnnotations'));
  problems.push(...annotationListProblems(spec.afterRebootAnnotations, 'spec.afterRebootAnnotations'));
  for (const field of ['grantTimeout', 'hookTimeout'] as const) {
    if (spec[field] === undefined) continue;
    const ms = readDuration(spec[field]);
    if (ms === undefined || ms <= 0) {
      problems.push({ path: `spec.${field}`, message: 'must be a positive duration like "30m" or "1h30m"' });
    }
  }
  if (spec.settleTime !== undefined) {
    const ms = readDuration(spec.settleTime);
    if (ms === undefined || ms < 0) {
      problems.push({ path: 'spec.settleTime', message: 'must be a duration like "5m" (or "0s")' });
    }
  }
  if (spec.onFailure !== undefined && spec.onFailure !== 'Halt' && spec.onFailure !== 'SetAside') {
    problems.push({ path: 'spec.onFailure', message: 'must be Halt or SetAside' });
  }
  const maxFailed = maxFailedProblem(spec.maxFailed);
  if (maxFailed) problems.push({ path: 'spec.maxFailed', message: maxFailed });
  problems.push(...notificationProblems(spec.notifications));
  if (spec.paused !== undefined && typeof spec.paused !== 'boolean') {
    problems.push({ path: 'spec.paused', message: 'must be a boolean' });
  }
  return problems;
}

/**
 * Problems with a `RebootGroup` object (any JSON; never throws). A node matched by two groups is
 * not visible here: the planner reports it.
 */
export function validateRebootGroup(obj: unknown): RebootGroupProblem[] {
  if (!isJsonObject(obj)) return [{ path: '', message: 'must be an object' }];
  const problems: RebootGroupProblem[] = [];
  const meta = obj.metadata;
  if (!isJsonObject(meta) || typeof meta.name !== 'string' || meta.name === '') {
    problems.push({ path: 'metadata.name', message: 'must be set' });
  }
  problems.push(...validateRebootGroupSpec(obj.spec));
  return problems;
}

/** Problems with `cronWindows` and `blackouts` (the weekly windows are checked above). */
function calendarProblems(spec: { cronWindows?: unknown; blackouts?: unknown }): RebootGroupProblem[] {
  const problems: RebootGroupProblem[] = [];
  if (spec.cronWindows !== undefined) {
    if (!Array.isArray(spec.cronWindows))
      problems.push({ path: 'spec.cronWindows', message: 'must be a list' });
    else
      spec.cronWindows.forEach((w: unknown, i) => {
        for (const p of cronWindowProblems(w))
          problems.push({
            path: `spec.cronWindows[${i}]${p.field ? `.${p.field}` : ''}`,
            message: p.message,
          });
      });
  }
  if (spec.blackouts !== undefined) {
    if (!Array.isArray(spec.blackouts)) problems.push({ path: 'spec.blackouts', message: 'must be a list' });
    else
      spec.blackouts.forEach((b: unknown, i) => {
        if (!blackoutSpan(b))
          problems.push({
            path: `spec.blackouts[${i}]`,
            message: 'start and end must be RFC 3339 instants, end after start',
          });
      });
  }
  return problems;
}
