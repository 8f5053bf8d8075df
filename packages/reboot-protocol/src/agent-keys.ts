/**
 * The agent's own bookkeeping on its node. It lives under our prefix in both protocols, so a FLUO
 * operator ignores it; the coordinator may read it, never writes it.
 */
import { CAPSTAN_PREFIX } from './protocol.js';

/**
 * Written by the agent when a reboot cycle was abandoned: `<Reason> <RFC 3339 time>: <message>`,
 * e.g. `DrainFailed 2025-01-01T00:00:00.000Z: 2 pods left after 600s (ns/web-1, ns/web-2)`.
 * Reasons: `DrainFailed`, `RebootFailed`, `VersionMismatch`. The time also paces the retry (no hot loop): a new
 * cycle starts only once the failure backoff has passed since it. It stays until the next cycle
 * starts, so an operator sees why the last one failed.
 */
export const AGENT_FAILURE_ANNOTATION = `${CAPSTAN_PREFIX}agent-failure`;

/**
 * Written by the agent when it starts draining (RFC 3339; in the same write as its cordon): the
 * drain timeout counts from here, so an agent restarted mid-drain keeps the deadline instead of
 * starting again from zero. Removed when a cycle ends; the next cycle writes its own.
 */
export const AGENT_DRAIN_STARTED_ANNOTATION = `${CAPSTAN_PREFIX}drain-started-at`;

/**
 * Written by the agent while its reboot-needed source cannot tell (the sentinel file's directory
 * is not mounted, update_engine is not on the bus, the command failed): the message; removed
 * once the source answers again. Meanwhile `reboot-needed` keeps its last known value.
 */
export const AGENT_SOURCE_ERROR_ANNOTATION = `${CAPSTAN_PREFIX}source-error`;

/**
 * Written by the agent when it cordons for a reboot whose source names the version it boots into
 * (update_engine's new version): after the reboot the agent compares it with os-release's.
 * Removed when they match; kept, with a `VersionMismatch` failure, when they do not.
 */
export const AGENT_TARGET_VERSION_ANNOTATION = `${CAPSTAN_PREFIX}target-version`;

/**
 * Written by the agent after each completed reboot cycle: the RFC 3339 times of the cycles within
 * its quarantine window, comma-separated (older ones dropped). Removed when it quarantines.
 */
export const AGENT_REBOOT_HISTORY_ANNOTATION = `${CAPSTAN_PREFIX}reboot-history`;

/**
 * Written by the agent when its node rebooted N times within the window and its source still
 * asks (a reboot loop): `<RFC 3339 time>: <why>`. While it is there the agent reports
 * `reboot-needed` false; an administrator removes it to let the node ask again.
 */
export const AGENT_QUARANTINED_ANNOTATION = `${CAPSTAN_PREFIX}quarantined`;

/**
 * Written by an administrator (never the agent: its admission policy lets it only remove it) to
 * ask for a reboot of the node with no OS trigger, e.g. `kernel arguments changed (CHG-1234)`:
 * the agent asks for one as if its source did, and removes the annotation once the node is back.
 */
export const ADMIN_REBOOT_REQUEST_ANNOTATION = `${CAPSTAN_PREFIX}reboot-requested`;

/**
 * Why the agent abandoned a reboot cycle. `VersionMismatch`: the node came back on another OS
 * version than the one it rebooted for (a failed update, a rollback); the agent leaves it in
 * progress so the reboot is not verified, and the coordinator's failure policy applies.
 */
export type AgentFailureReason = 'DrainFailed' | 'RebootFailed' | 'VersionMismatch';

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

/**
 * The Node condition the agent keeps while its node is quarantined for a reboot loop: `True`
 * (reason `RebootLoop`, the quarantine annotation's text as message) while
 * {@link AGENT_QUARANTINED_ANNOTATION} is there, `False` once an administrator removed it.
 */
export const AGENT_QUARANTINED_CONDITION = 'RebootQuarantined';

/**
 * The Node condition the agent keeps while its reboot-needed source cannot tell: `True` (reason
 * `SourceCannotTell`, the error as message) while {@link AGENT_SOURCE_ERROR_ANNOTATION} is there,
 * `False` once the source answers again.
 */
export const AGENT_SOURCE_ERROR_CONDITION = 'RebootSourceError';

/** Every Node condition type the agent writes (through `nodes/status`); no other. */
export const AGENT_CONDITION_TYPES: readonly string[] = [
  AGENT_QUARANTINED_CONDITION,
  AGENT_SOURCE_ERROR_CONDITION,
];
