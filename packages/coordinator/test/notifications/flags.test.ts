/** The --notify-* flags: off without a URL, each unusable value refused naming its flag. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_NOTIFY_TIMEOUT_MS, notificationsFromFlags } from '../../src/notifications/flags.js';

describe('notificationsFromFlags', () => {
  it('is off without --notify-url', () => {
    expect(notificationsFromFlags({ notifyUrl: [], notifyFormat: 'Json' })).toBeUndefined();
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
