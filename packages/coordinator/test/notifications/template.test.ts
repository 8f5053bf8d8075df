/** Templates substitute known placeholders only, never expand values, and report unknown ones. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateRebootGroupSpec } from '../../src/api/validation.js';
import { webhookBody } from '../../src/notifications/payload.js';
import { PLACEHOLDERS, renderTemplate, unknownPlaceholders } from '../../src/notifications/template.js';

describe('notification templates', () => {
  it('substitutes the known placeholders, spaces allowed', () => {
    expect(
      renderTemplate('{{node}} / {{ group }}: {{event}} ({{reason}})', {
        node: 'w-1',
        group: 'workers',
        event: 'Granted',
        reason: 'Granted',
      }),
    ).toBe('w-1 / workers: Granted (Granted)');
  });

  it('lists unknown placeholders once each, in order', () => {
    expect(unknownPlaceholders('{{node}} {{nodename}} {{x}} {{nodename}} {{ process.env }}')).toEqual([
      'nodename',
      'x',
      'process.env',
    ]);
    expect(unknownPlaceholders(PLACEHOLDERS.map((p) => `{{${p}}}`).join(' '))).toEqual([]);
  });

  it('never expands a placeholder found in a value', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (node, group) => {
        const text = renderTemplate('[{{node}}|{{group}}]', { node, group });
        expect(text).toBe(`[${node}|${group}]`);
      }),
    );
  });

  it('makes a group with an unknown placeholder invalid, naming the field and the known ones', () => {
    const problems = validateRebootGroupSpec({
      notifications: {
        webhooks: [{ url: 'https://hooks.example/x', template: 'node {{nodeName}}' }, { url: 'ftp://x' }],
        waitingThreshold: 'soon',
      },
    });
    expect(problems.map((p) => p.path)).toEqual([
      'spec.notifications.webhooks[0].template',
      'spec.notifications.webhooks[1].url',
      'spec.notifications.waitingThreshold',
    ]);
    expect(problems[0]?.message).toContain('{{nodeName}}');
    expect(problems[0]?.message).toContain('{{node}}');
  });

  it('shapes Slack bodies as text plus a section block, JSON bodies as fields', () => {
    const n = { event: 'Granted' as const, group: 'g', node: 'n', reason: 'Granted', at: 0 };
    expect(JSON.parse(webhookBody(n, 'Slack', '{{node}} {{event}}'))).toEqual({
      text: 'n Granted',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'n Granted' } }],
    });
    expect(JSON.parse(webhookBody(n, 'Json'))).toEqual({
      event: 'Granted',
      group: 'g',
      node: 'n',
      reason: 'Granted',
      time: '1970-01-01T00:00:00.000Z',
      text: 'Reboot Granted: node n in group g (Granted)',
    });
  });
});
