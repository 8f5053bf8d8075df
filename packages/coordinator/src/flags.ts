/** The coordinator's command-line flags (besides the standard ones) and the options they make. */
import {
  type CommandLine,
  formatDuration,
  type ParseOptionsConfig,
  packageVersion,
  parseCommandLine,
  parseDuration,
} from '@capstan/runtime';
import { parseLabelSelector } from '@capstan/runtime/client';
import { ownNamespace } from '@capstan/runtime/manager';
import { maxUnavailableProblem } from './api/budget.js';
import type { RebootGroupSpec } from './api/reboot-group.js';
import type { RebootWindow, Weekday } from './api/reboot-window.js';
import { validateRebootGroupSpec } from './api/validation.js';
import { DEFAULT_GRANT_TIMEOUT_MS, DEFAULT_GROUP_NAME, DEFAULT_GROUP_SPEC } from './decide/plan.js';
import { COORDINATOR_MANAGER } from './manager-name.js';
import {
  addNotificationFlags,
  type NotificationFlags,
  notificationsFromFlags,
} from './notifications/flags.js';
import type { CoordinatorOptions } from './options.js';

type Command = Parameters<NonNullable<ParseOptionsConfig['extend']>>[0];

/** The coordinator's own flags, as commander names them. */
export interface CoordinatorFlags extends NotificationFlags {
  protocol: string;
  defaultGroupName: string;
  defaultMaxUnavailable: string;
  defaultOrder: string;
  defaultGrantTimeout: string;
  defaultBeforeRebootAnnotation: string[];
  defaultAfterRebootAnnotation: string[];
  defaultRebootWindow: string[];
  nodeSelector?: string;
  groupSelector?: string;
  fenceLeaseName: string;
  resyncPeriod: string;
  fleetlockBindAddress: string;
  fleetlockWait: string;
  fleetlockAllowMissingGroup: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds the coordinator's flags to a command (use as `parseStandardOptions`' `extend`). */
export function addCoordinatorFlags(command: Command): void {
  command
    .option('--protocol <name>', 'annotation protocol: capstan or fluo (FLUO-compatible keys)', 'capstan')
    .option('--default-group-name <name>', 'reboot group of nodes no RebootGroup selects', DEFAULT_GROUP_NAME)
    .option(
      '--default-max-unavailable <n|pct>',
      'budget of the default group: a count or a percentage like 25%',
      String(DEFAULT_GROUP_SPEC.maxUnavailable),
    )
    .option(
      '--default-order <n>',
      'order of the default group (lower goes first)',
      String(DEFAULT_GROUP_SPEC.order),
    )
    .option(
      '--default-grant-timeout <duration>',
      'grant timeout of groups that set none',
      formatDuration(DEFAULT_GRANT_TIMEOUT_MS),
    )
    .option(
      '--default-before-reboot-annotation <key>',
      'before-reboot check of the default group (repeatable)',
      collect,
      [],
    )
    .option(
      '--default-after-reboot-annotation <key>',
      'after-reboot check of the default group (repeatable)',
      collect,
      [],
    )
    .option(
      '--default-reboot-window <window>',
      'reboot window of the default group, "[Mon,Tue,...] HH:MM-HH:MM [time zone]" (repeatable; none: always)',
      collect,
      [],
    )
    .option('--node-selector <selector>', 'coordinate only nodes matching this label selector')
    .option('--group-selector <selector>', 'coordinate only RebootGroups matching this label selector')
    .option(
      '--fence-lease-name <name>',
      'name of the grant fence Lease in the coordinator namespace',
      'capstan-coordinator-fence',
    )
    .option('--resync-period <duration>', 'longest time between two planning rounds', '30s')
    .option('--fleetlock-bind-address <address>', 'serve FleetLock here, e.g. :9090 ("0": off)', '0')
    .option('--fleetlock-wait <duration>', 'how long a pre-reboot waits for its grant before answering', '5s')
    .option(
      '--fleetlock-allow-missing-group',
      'take a FleetLock request without client_params.group as the default group (the protocol requires it)',
      false,
    );
  addNotificationFlags(command);
}

/**
 * Parses a `--default-reboot-window` value: optional comma-separated days, `HH:MM-HH:MM`, an
 * optional IANA time zone, in any order, e.g. `Sat,Sun 02:00-06:00 Europe/Berlin`.
 * @throws Error naming the flag and what is wrong.
 */
export function parseRebootWindowFlag(raw: string): RebootWindow {
  const window: Partial<RebootWindow> = {};
  for (const token of raw.trim().split(/\s+/).filter(Boolean)) {
    const time = /^(\d{2}:\d{2})-(\d{2}:\d{2})$/.exec(token);
    if (time) {
      window.start = time[1] as string;
      window.end = time[2] as string;
    } else if (/^[A-Z][a-z]{2}(,[A-Z][a-z]{2})*$/.test(token) && !token.includes('/')) {
      window.days = token.split(',') as Weekday[];
    } else window.timeZone = token;
  }
  if (window.start === undefined || window.end === undefined) {
    throw new Error(`--default-reboot-window "${raw}" needs a time range HH:MM-HH:MM`);
  }
  const problems = validateRebootGroupSpec({ windows: [window] });
  if (problems.length > 0) {
    throw new Error(
      `--default-reboot-window "${raw}": ${problems.map((p) => `${p.path.replace('spec.windows[0]', 'window')}: ${p.message}`).join('; ')}`,
    );
  }
  return window as RebootWindow;
}

/** A label selector flag as an option, once it parses; `{}` when absent or blank. */
function selectorFlag<K extends string>(
  flag: string,
  key: K,
  raw: string | undefined,
): { [P in K]?: string } {
  const text = raw?.trim();
  if (!text) return {};
  try {
    parseLabelSelector(text);
  } catch (err) {
    throw new Error(`${flag} "${raw}": ${err instanceof Error ? err.message : String(err)}`);
  }
  return { [key]: text } as { [P in K]?: string };
}

/**
 * Turns the flags into {@link CoordinatorOptions}.
 * @param namespace the coordinator's namespace (the fence Lease lives there).
 * @throws Error naming the flag when a value is unusable.
 */
export function coordinatorOptionsFromFlags(flags: CoordinatorFlags, namespace: string): CoordinatorOptions {
  if (flags.protocol !== 'capstan' && flags.protocol !== 'fluo') {
    throw new Error(`--protocol must be capstan or fluo, got "${flags.protocol}"`);
  }
  const raw = flags.defaultMaxUnavailable.trim();
  const maxUnavailable: number | string = /^\d+$/.test(raw) ? Number(raw) : raw;
  const problem = maxUnavailableProblem(maxUnavailable);
  if (problem) throw new Error(`--default-max-unavailable ${problem}`);
  const order = Number(flags.defaultOrder);
  if (!Number.isSafeInteger(order))
    throw new Error(`--default-order must be an integer, got "${flags.defaultOrder}"`);
  const grantTimeoutMs = parseDuration(flags.defaultGrantTimeout);
  if (!(grantTimeoutMs > 0)) throw new Error('--default-grant-timeout must be positive');
  const defaultGroup: RebootGroupSpec = { maxUnavailable, order };
  if (flags.defaultBeforeRebootAnnotation.length > 0)
    defaultGroup.beforeRebootAnnotations = flags.defaultBeforeRebootAnnotation;
  if (flags.defaultAfterRebootAnnotation.length > 0)
    defaultGroup.afterRebootAnnotations = flags.defaultAfterRebootAnnotation;
  const windows = (flags.defaultRebootWindow ?? []).map(parseRebootWindowFlag);
  if (windows.length > 0) defaultGroup.windows = windows;
  const notifications = notificationsFromFlags(flags);
  return {
    ...(notifications ? { notifications } : {}),
    protocol: flags.protocol,
    defaultGroupName: flags.defaultGroupName,
    defaultGroup,
    defaultGrantTimeoutMs: grantTimeoutMs,
    ...selectorFlag('--node-selector', 'nodeSelector', flags.nodeSelector),
    ...selectorFlag('--group-selector', 'groupSelector', flags.groupSelector),
    namespace,
    fenceName: flags.fenceLeaseName,
    resyncPeriodMs: parseDuration(flags.resyncPeriod),
    fleetlock: {
      bindAddress: flags.fleetlockBindAddress,
      waitMs: parseDuration(flags.fleetlockWait),
      allowMissingGroup: flags.fleetlockAllowMissingGroup === true,
    },
  };
}

/**
 * Parses main's arguments (without node and the script), as the Deployment passes them. The
 * fence Lease lives in `--leader-election-namespace`, else the pod's own namespace.
 * `--help` and usage errors go through `exit` (default `process.exit`).
 * @throws Error naming the flag when a coordinator flag's value is unusable.
 */
export function parseCoordinatorArgs(
  argv: readonly string[],
  io: Pick<ParseOptionsConfig, 'exit' | 'output'> = {},
): CommandLine<CoordinatorOptions> {
  return parseCommandLine<CoordinatorFlags, CoordinatorOptions>(argv, {
    name: COORDINATOR_MANAGER,
    description:
      'Coordinates node reboots: grants them within each RebootGroup budget, in order and windows.',
    version: packageVersion(import.meta.url),
    defaults: { leaderElectionId: COORDINATOR_MANAGER },
    extend: addCoordinatorFlags,
    options: (flags, standard) =>
      coordinatorOptionsFromFlags(flags, standard.leaderElectionNamespace ?? ownNamespace()),
    ...io,
  });
}
