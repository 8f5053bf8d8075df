/**
 * The --notify-* flags: off when they ask nothing, a CA file or threshold kept for the groups'
 * webhooks without a global URL, each unusable value refused naming its flag.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_NOTIFY_TIMEOUT_MS, notificationsFromFlags } from '../../src/notifications/flags.js';

describe('notificationsFromFlags', () => {
  it('is off without --notify-url, --notify-ca-file or --notify-waiting-threshold', () => {
    expect(
      notificationsFromFlags({ notifyUrl: [], notifyFormat: 'Json', notifyTimeout: '10s' }),
    ).toBeUndefined();
  });

  it('keeps --notify-ca-file and the threshold for the groups’ webhooks when no URL is given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'notify-ca-'));
    writeFileSync(join(dir, 'ca.pem'), 'PEM');
    expect(
      notificationsFromFlags({
        notifyUrl: [],
        notifyFormat: 'Json',
        notifyCaFile: join(dir, 'ca.pem'),
        notifyWaitingThreshold: '1h',
      }),
    ).toEqual({
      webhooks: [],
      waitingThresholdMs: 60 * 60_000,
      delivery: { timeoutMs: DEFAULT_NOTIFY_TIMEOUT_MS, trust: { caPem: 'PEM' } },
    });
  });

  it('makes one webhook per URL with the format, template and threshold', () => {
    expect(
      notificationsFromFlags({
        notifyUrl: ['https://a.example/x', 'http://b.example/y'],
        notifyFormat: 'Slack',
        notifyTemplate: 'Draining node {{node}}',
        notifyWaitingThreshold: '90m',
      }),
    ).toEqual({
      webhooks: [
        { url: 'https://a.example/x', format: 'Slack', template: 'Draining node {{node}}' },
        { url: 'http://b.example/y', format: 'Slack', template: 'Draining node {{node}}' },
      ],
      waitingThresholdMs: 90 * 60_000,
      delivery: { timeoutMs: DEFAULT_NOTIFY_TIMEOUT_MS },
    });
  });

  it.each([
    [{ notifyUrl: ['slack://token@channel'] }, '--notify-url must be an http or https URL'],
    [{ notifyUrl: ['https://a'], notifyFormat: 'Teams' }, '--notify-format must be Json or Slack'],
    [
      { notifyUrl: ['https://a'], notifyTemplate: 'Node %s {{host}}' },
      '--notify-template has unknown placeholders: {{host}}',
    ],
    [{ notifyUrl: ['https://a'], notifyTimeout: '0s' }, '--notify-timeout must be positive'],
    [
      { notifyUrl: ['https://a'], notifyWaitingThreshold: '0s' },
      '--notify-waiting-threshold must be positive',
    ],
  ])('refuses %j', (flags, message) => {
    expect(() => notificationsFromFlags(flags)).toThrow(message);
  });
});
