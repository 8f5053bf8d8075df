/**
 * The coordinator's notifier: after each round, decides what to tell ({@link decideNotifications})
 * and hands each notification, formatted, to the delivery queues of the webhooks that want it
 * (the group's own and the global ones). It never waits on a webhook.
 */
import { readDuration } from '@capstan/runtime';
import type { RebootGroup, RebootGroupSpec } from '../api/reboot-group.js';
import type { NodeWrite } from '../decide/node-write.js';
import type { Plan } from '../decide/plan.js';
import { decideNotifications, FRESH_MEMORY, type NotificationEvent, type NotifierMemory } from './decide.js';
import type { DeliveryOptions, WebhookDelivery } from './delivery.js';
import { type WebhookFormat, webhookBody } from './payload.js';
import { unknownPlaceholders } from './template.js';

/** One webhook: where, in which shape, with which text, for which events. */
export interface WebhookEndpoint {
  url: string;
  /** Default `Json`. */
  format?: WebhookFormat;
  /** Message text with placeholders (see `docs/notifications.md`). */
  template?: string;
  /** Only these events (default all). */
  events?: readonly NotificationEvent[];
}

/** Notifications of every group, beside each group's `spec.notifications`. */
export interface GlobalNotifications {
  webhooks: readonly WebhookEndpoint[];
  /** Notify `Waiting` for a node queued longer than this (a group's own threshold wins). */
  waitingThresholdMs?: number;
}

/** The coordinator's notification options: global webhooks and how bodies are delivered. */
export interface NotificationOptions extends GlobalNotifications {
  delivery?: Pick<DeliveryOptions, 'timeoutMs' | 'trust' | 'queueLimit' | 'maxAttempts' | 'backoff'>;
}

/** Turns rounds into webhook bodies. Remembers only halted groups and notified long waits. */
export class Notifier {
  private memory: NotifierMemory = FRESH_MEMORY;

  constructor(
    private readonly delivery: WebhookDelivery,
    private readonly global: GlobalNotifications = { webhooks: [] },
  ) {}

  /** Notifies what the round whose `applied` writes landed changed. */
  afterRound(p: Plan, groups: readonly RebootGroup[], applied: readonly NodeWrite[], now: number): void {
    const specs = new Map<string, RebootGroupSpec>();
    for (const g of groups) if (g.metadata?.name) specs.set(g.metadata.name, g.spec);
    const halted: Record<string, string> = {};
    const queues: Record<string, NonNullable<Plan['groupStatus'][string]['queue']>> = {};
    const waitingThresholdMs: Record<string, number> = {};
    for (const [group, status] of Object.entries(p.groupStatus)) {
      const h = status.conditions?.find((c) => c.type === 'Halted' && c.status === 'True');
      if (h) halted[group] = h.message;
      queues[group] = status.queue ?? [];
      const own = specs.get(group)?.notifications?.waitingThreshold;
      const threshold = own !== undefined ? readDuration(own) : this.global.waitingThresholdMs;
      if (threshold !== undefined) waitingThresholdMs[group] = threshold;
    }
    const decided = decideNotifications(
      { applied, membership: p.membership, halted, queues, waitingThresholdMs, now },
      this.memory,
    );
    this.memory = decided.memory;
    for (const n of decided.notifications) {
      for (const endpoint of this.endpointsOf(specs.get(n.group))) {
        if (endpoint.events && !endpoint.events.includes(n.event)) continue;
        this.delivery.enqueue(endpoint.url, webhookBody(n, endpoint.format ?? 'Json', endpoint.template));
      }
    }
  }

  /** A group's webhooks and the global ones; a template with unknown placeholders is skipped. */
  private endpointsOf(spec: RebootGroupSpec | undefined): WebhookEndpoint[] {
    const own = (spec?.notifications?.webhooks ?? []) as WebhookEndpoint[];
    return [...own, ...this.global.webhooks].filter(
      (e) => e.template === undefined || unknownPlaceholders(e.template).length === 0,
    );
  }
}
