/**
 * Message templates for notifications: plain text with `{{placeholder}}` substitution and nothing
 * else (no expressions, no code), so a RebootGroup's author cannot run anything in the coordinator.
 * An unknown placeholder is refused when the group is validated, never discovered at send time.
 */

/** The placeholders a template may use. */
export const PLACEHOLDERS = ['node', 'group', 'event', 'reason', 'time'] as const;

/** One placeholder's name. */
export type Placeholder = (typeof PLACEHOLDERS)[number];

const PATTERN = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The unknown placeholders of `template`, in order of appearance (empty when it is usable). */
export function unknownPlaceholders(template: string): string[] {
  const unknown: string[] = [];
  for (const m of template.matchAll(PATTERN)) {
    const name = m[1] ?? '';
    if (!(PLACEHOLDERS as readonly string[]).includes(name) && !unknown.includes(name)) unknown.push(name);
  }
  return unknown;
}

/**
 * `template` with each known placeholder replaced by its value (an absent value: empty). Values
 * are inserted as they are and never expanded again, so a node name cannot inject placeholders.
 */
export function renderTemplate(
  template: string,
  values: Readonly<Partial<Record<Placeholder, string>>>,
): string {
  return template.replace(PATTERN, (whole, name: string) =>
    (PLACEHOLDERS as readonly string[]).includes(name) ? (values[name as Placeholder] ?? '') : whole,
  );
}
