/** The Greeting's decisions, pure: what its ConfigMap is called and what it holds. */
import type { Greeting } from '../api/index.js';

/** The owned ConfigMap's name for a Greeting. */
export const configMapNameFor = (greeting: Greeting): string => `${greeting.metadata.name}-greeting`;

/** The ConfigMap's content: one line per recipient (or the bare message). */
export function renderGreeting(spec: Greeting['spec']): string {
  const recipients = spec.recipients?.length ? spec.recipients : [undefined];
  return recipients.map((to) => (to ? `${spec.message}, ${to}!` : spec.message)).join('\n');
}
