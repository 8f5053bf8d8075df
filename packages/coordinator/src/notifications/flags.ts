/** The coordinator's notification flags (kured's `--notify-url` and friends) and what they make. */
import { readFileSync } from 'node:fs';
import { formatDuration, type ParseOptionsConfig, parseDuration } from '@capstan/runtime';
import type { NotificationOptions } from './notifier.js';
import { PLACEHOLDERS, unknownPlaceholders } from './template.js';

type Command = Parameters<NonNullable<ParseOptionsConfig['extend']>>[0];

/** The notification flags, as commander names them. */
export interface NotificationFlags {
  notifyUrl?: string[];
  notifyFormat?: string;
  notifyTemplate?: string;
  notifyWaitingThreshold?: string;
  notifyCaFile?: string;
  notifyTimeout?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Default deadline of each POST. */
export const DEFAULT_NOTIFY_TIMEOUT_MS = 10_000;

/** Adds the notification flags to a command. */
export function addNotificationFlags(command: Command): void {
  command
    .option('--notify-url <url>', 'webhook told of every group’s reboots (repeatable)', collect, [])
    .option('--notify-format <format>', 'body of --notify-url webhooks: Json or Slack', 'Json')
    .option(
      '--notify-template <text>',
      `message text; placeholders ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(' ')}`,
    )
    .option('--notify-waiting-threshold <duration>', 'notify a node queued longer than this (default never)')
    .option('--notify-ca-file <path>', 'CA bundle to verify HTTPS webhooks with (default the system roots)')
    .option(
      '--notify-timeout <duration>',
      'deadline of each webhook POST',
      formatDuration(DEFAULT_NOTIFY_TIMEOUT_MS),
    );
}

/**
 * The global notifications the flags ask for: webhooks, and how every webhook (the groups' too) is
 * delivered. Undefined when they ask nothing: no URL, no CA file, no waiting threshold (a group's
 * webhook behind a private CA needs `--notify-ca-file` without any `--notify-url`).
 * @throws Error naming the flag when a value is unusable.
 */
export function notificationsFromFlags(flags: NotificationFlags): NotificationOptions | undefined {
  const urls = flags.notifyUrl ?? [];
  if (urls.length === 0 && !flags.notifyCaFile && flags.notifyWaitingThreshold === undefined)
    return undefined;
  for (const url of urls) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {}
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
      throw new Error(`--notify-url must be an http or https URL, got "${url}"`);
  }
  const format = flags.notifyFormat ?? 'Json';
  if (format !== 'Json' && format !== 'Slack')
    throw new Error(`--notify-format must be Json or Slack, got "${format}"`);
  const template = flags.notifyTemplate;
  const unknown = template === undefined ? [] : unknownPlaceholders(template);
  if (unknown.length > 0)
    throw new Error(
      `--notify-template has unknown placeholders: ${unknown.map((u) => `{{${u}}}`).join(', ')}`,
    );
  const timeoutMs =
    flags.notifyTimeout === undefined ? DEFAULT_NOTIFY_TIMEOUT_MS : parseDuration(flags.notifyTimeout);
  if (!(timeoutMs > 0)) throw new Error('--notify-timeout must be positive');
  const threshold =
    flags.notifyWaitingThreshold === undefined ? undefined : parseDuration(flags.notifyWaitingThreshold);
  if (threshold !== undefined && !(threshold > 0))
    throw new Error('--notify-waiting-threshold must be positive');
  return {
    webhooks: urls.map((url) => ({ url, format, ...(template !== undefined ? { template } : {}) })),
    ...(threshold !== undefined ? { waitingThresholdMs: threshold } : {}),
    delivery: {
      timeoutMs,
      ...(flags.notifyCaFile ? { trust: { caPem: readFileSync(flags.notifyCaFile, 'utf8') } } : {}),
    },
  };
}
