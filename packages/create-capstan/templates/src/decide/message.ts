/**
 * What the Widget controller decides, pure (no client, no clock): the ConfigMap a Widget gets. Put
 * the decisions here and test them with properties (test/message.property.test.ts); the
 * reconciler only reads, calls these, and writes.
 */
import type { Widget } from '../api/generated.js';

/** The ConfigMap a Widget owns: its name and data. */
export interface MessageConfigMap {
  name: string;
  data: Record<string, string>;
}

/** A Widget's ConfigMap: named after the Widget, holding its message. */
export function messageConfigMap(widget: Pick<Widget, 'metadata' | 'spec'>): MessageConfigMap {
  return { name: `${widget.metadata.name}-message`, data: { message: widget.spec.message } };
}
