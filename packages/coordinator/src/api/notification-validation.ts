/**
 * What the CRD schema cannot refuse in `spec.notifications`: unknown template placeholders, URLs
 * that do not parse, unparsable thresholds. Each becomes part of the group's `Valid` condition.
 */
import { isJsonObject, readDuration } from '@capstan/runtime';
import { NOTIFICATION_EVENTS } from '../notifications/decide.js';
import { PLACEHOLDERS, unknownPlaceholders } from '../notifications/template.js';
import type { RebootGroupProblem } from './validation.js';

/** Problems of one webhook at `at`. */
function webhookProblems(w: unknown, at: string): RebootGroupProblem[] {
  if (!isJsonObject(w)) return [{ path: at, message: 'must be an object' }];
  const problems: RebootGroupProblem[] = [];
  let url: URL | undefined;
  try {
    url = typeof w.url === 'string' ? new URL(w.url) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    problems.push({ path: `${at}.url`, message: 'must be an http or https URL' });
  if (w.format !== undefined && w.format !== 'Json' && w.format !== 'Slack')
    problems.push({ path: `${at}.format`, message: 'must be Json or Slack' });
  if (w.template !== undefined) {
    const unknown = typeof w.template === 'string' ? unknownPlaceholders(w.template) : [];
    if (typeof w.template !== 'string')
      problems.push({ path: `${at}.template`, message: 'must be a string' });
    else if (unknown.length > 0)
      problems.push({
        path: `${at}.template`,
        message: `unknown placeholder ${unknown.map((u) => `{{${u}}}`).join(', ')}; known: ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}`,
      });
  }
  if (w.events !== undefined) {
    if (!Array.isArray(w.events)) problems.push({ path: `${at}.events`, message: 'must be a list' });
    else
      w.events.forEach((e: unknown, i) => {
        if (!(NOTIFICATION_EVENTS as readonly unknown[]).includes(e))
          problems.push({
            path: `${at}.events[${i}]`,
            message: `must be one of ${NOTIFICATION_EVENTS.join(', ')}`,
          });
      });
  }
  return problems;
}

/** Problems of `spec.notifications` (none when absent). */
export function notificationProblems(notifications: unknown): RebootGroupProblem[] {
  const at = 'spec.notifications';
  if (notifications === undefined) return [];
  if (!isJsonObject(notifications)) return [{ path: at, message: 'must be an object' }];
  const problems: RebootGroupProblem[] = [];
  const { webhooks, waitingThreshold } = notifications;
  if (webhooks !== undefined) {
    if (!Array.isArray(webhooks)) problems.push({ path: `${at}.webhooks`, message: 'must be a list' });
    else problems.push(...webhooks.flatMap((w: unknown, i) => webhookProblems(w, `${at}.webhooks[${i}]`)));
  }
  if (waitingThreshold !== undefined) {
    const ms = readDuration(waitingThreshold);
    if (ms === undefined || ms <= 0)
      problems.push({ path: `${at}.waitingThreshold`, message: 'must be a positive duration like "1h"' });
  }
  return problems;
}
