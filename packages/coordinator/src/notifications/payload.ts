/**
 * A notification as a webhook body: a generic JSON object, or Slack's incoming-webhook shape
 * (`text`, plus the same text as a `section` block), which Mattermost and Rocket.Chat accept too.
 */
import type { Notification } from './decide.js';
import { renderTemplate } from './template.js';

/** How a webhook wants its body. */
export type WebhookFormat = 'Json' | 'Slack';

/** The text when an endpoint has no template. */
export const DEFAULT_NODE_TEMPLATE = 'Reboot {{event}}: node {{node}} in group {{group}} ({{reason}})';
/** The text of a group's halt when an endpoint has no template. */
export const DEFAULT_GROUP_TEMPLATE = 'Reboot {{event}}: group {{group}} ({{reason}})';

/** The message text of `n` under `template` (default: a sentence per event). */
export function messageText(n: Notification, template?: string): string {
  const t = template ?? (n.node === undefined ? DEFAULT_GROUP_TEMPLATE : DEFAULT_NODE_TEMPLATE);
  return renderTemplate(t, {
    node: n.node ?? '',
    group: n.group,
    event: n.event,
    reason: n.reason,
    time: new Date(n.at).toISOString(),
  });
}

/** The JSON body to POST for `n`. */
export function webhookBody(n: Notification, format: WebhookFormat, template?: string): string {
  const text = messageText(n, template);
  if (format === 'Slack') {
    return JSON.stringify({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
  }
  return JSON.stringify({
    event: n.event,
    group: n.group,
    ...(n.node !== undefined ? { node: n.node } : {}),
    reason: n.reason,
    time: new Date(n.at).toISOString(),
    text,
  });
}
