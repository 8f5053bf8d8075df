/**
 * A migration that waits on the same thing for too long is stalled: an agent rollout that never
 * becomes available on the new protocol (a node whose pod never turns ready), a coordinator that
 * never reports on its paused groups. Pure.
 *
 * The wait is bounded in what it reports, not in what it gives up: a stall changes nothing the
 * migration does. Its groups stay paused (nothing new is granted), every node's keys go on being
 * mirrored (no request or grant is lost or doubled), and once what it waits on clears, the next
 * round goes on where it stood. What it adds is a Degraded condition that says how long, in which
 * step, and on what.
 *
 * "The same thing" is the phase together with the step's own description of what it waits for,
 * which carries the counts (pods updated and available, nodes left to mirror, groups not yet seen
 * paused): a long rollout that keeps moving restarts the clock at each change and never stalls.
 */
import type { MigrationStatus } from '../api/reboot-stack.js';
import type { StackProblem } from '../api/validation.js';

/** How long a migration may wait on one thing before it is reported stalled, by default. */
export const DEFAULT_MIGRATION_STALL_MS = 10 * 60_000;

const parsedTime = (value: string | undefined): number | undefined => {
  const ms = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
};

/**
 * `next` (the migration after this round's step; undefined when it is over) with what it waits
 * for and since when. The clock keeps `previous`'s start while the phase and `waiting` are the
 * same, and restarts at `now` when either changes (or `previous` carries no usable start).
 */
export function trackWait(
  previous: MigrationStatus,
  next: MigrationStatus | undefined,
  waiting: string | undefined,
  now: Date,
): MigrationStatus | undefined {
  if (!next) return undefined;
  const { waiting: _waiting, waitingSince: _since, ...rest } = next;
  if (waiting === undefined) return rest;
  const same =
    previous.phase === next.phase &&
    previous.waiting === waiting &&
    parsedTime(previous.waitingSince) !== undefined;
  return { ...rest, waiting, waitingSince: same ? previous.waitingSince : now.toISOString() };
}

/** Minutes and seconds, as a person reads a timeout ("10m", "1m30s", "45s"). */
function spelled(ms: number): string {
  const s = Math.round(ms / 1000);
  const [m, r] = [Math.floor(s / 60), s % 60];
  return m === 0 ? `${r}s` : r === 0 ? `${m}m` : `${m}m${r}s`;
}

/**
 * The MigrationStalled problem of `migration` at `now`: it has waited on the same thing for
 * `timeoutMs` or longer. Undefined while it moves (or runs no more). The message is the same from
 * round to round while the stall lasts, so reporting it writes the status once.
 */
export function migrationStall(
  migration: MigrationStatus | undefined,
  now: Date,
  timeoutMs: number,
): StackProblem | undefined {
  const since = parsedTime(migration?.waitingSince);
  if (!migration?.waiting || since === undefined || now.getTime() - since < timeoutMs) return undefined;
  return {
    reason: 'MigrationStalled',
    message:
      `the migration from ${migration.from} to ${migration.to} has waited in ${migration.phase} since ` +
      `${migration.waitingSince} (longer than ${spelled(timeoutMs)}): ${migration.waiting}. ` +
      'The RebootGroups stay paused, so nothing new is granted; every request and grant is kept, ' +
      'and the migration goes on by itself once this clears.',
  };
}
