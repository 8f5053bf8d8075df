/**
 * The agent's view of the annotation protocol: the protocol keys come from the coordinator's
 * published API (the agent imports nothing else of it); the agent's own bookkeeping lives under
 * our prefix in both protocols, so a FLUO operator ignores it.
 */
import { capstanProtocol, fluoProtocol, type Protocol } from '@capstan/coordinator';

/** Protocol names accepted by `--protocol`. */
export const PROTOCOL_NAMES = ['capstan', 'fluo'] as const;

/** One of {@link PROTOCOL_NAMES}. */
export type ProtocolName = (typeof PROTOCOL_NAMES)[number];

/** The protocol called `name`, or the protocol itself. */
export function protocolOf(protocol: ProtocolName | Protocol | undefined): Protocol {
  if (protocol === undefined || protocol === 'capstan') return capstanProtocol;
  if (protocol === 'fluo') return fluoProtocol;
  if (typeof protocol === 'string') throw new RangeError(`unknown protocol "${protocol}" (capstan or fluo)`);
  return protocol;
}

/**
 * Written by the agent when a reboot cycle was abandoned: `<Reason> <RFC 3339 time>: <message>`,
 * e.g. `DrainFailed 2025-01-01T00:00:00.000Z: 2 pods left after 600s (ns/web-1, ns/web-2)`.
 * Reasons: `DrainFailed`, `RebootFailed`. The time also paces the retry (no hot loop): a new
 * cycle starts only once the failure backoff has passed since it. It stays until the next cycle
 * starts, so an operator sees why the last one failed.
 */
export const AGENT_FAILURE_ANNOTATION = 'reboot.capstan.dev/agent-failure';

/** Why the agent abandoned a reboot cycle. */
export type AgentFailureReason = 'DrainFailed' | 'RebootFailed';

/** Formats the value of {@link AGENT_FAILURE_ANNOTATION}. */
export function formatAgentFailure(reason: AgentFailureReason, at: number, message: string): string {
  return `${reason} ${new Date(at).toISOString()}: ${message}`;
}

/** Parses {@link AGENT_FAILURE_ANNOTATION}; `undefined` for anything else (garbage never throws). */
export function parseAgentFailure(
  raw: string | undefined,
): { reason: string; at: number; message: string } | undefined {
  if (raw === undefined) return undefined;
  const match = /^(\S+) (\S+): ?([\s\S]*)$/.exec(raw);
  if (!match) return undefined;
  const at = Date.parse(match[2] as string);
  if (!Number.isFinite(at)) return undefined;
  return { reason: match[1] as string, at, message: match[3] as string };
}
