/**
 * The node annotation protocol spoken between the reboot coordinator and the update agents.
 *
 * Every key has one writer. The agent reports what the OS says (`reboot-needed`,
 * `reboot-in-progress`, `status`, ...); the coordinator answers (`reboot-ok`, the hook labels); an
 * administrator pauses (`reboot-paused`). Boolean values are the strings `"true"` and `"false"`;
 * anything else is read as false.
 *
 * The same roles exist under two prefixes: ours ({@link capstanProtocol}) and FLUO's
 * ({@link fluoProtocol}, byte-for-byte compatible, so a FLUO agent can be coordinated). The
 * coordinator's own bookkeeping keys ({@link coordinatorKeys}) always use our prefix, so a FLUO
 * agent never sees them.
 */

/** Our API group and annotation prefix. */
export const CAPSTAN_PREFIX = 'reboot.capstan.dev/';

/** The prefix of the Flatcar Linux Update Operator (FLUO) protocol. */
export const FLUO_PREFIX = 'flatcar-linux-update.v1.flatcar-linux.net/';

/** The prefix of the older Container Linux Update Operator (CLUO), FLUO's ancestor. */
export const CLUO_PREFIX = 'container-linux-update.v1.coreos.com/';

/** Prefixes whose keys belong to a reboot protocol: never usable as hook annotations. */
export const RESERVED_PREFIXES: readonly string[] = Object.freeze([CAPSTAN_PREFIX, FLUO_PREFIX, CLUO_PREFIX]);

/** The string a protocol boolean holds when set. */
export const TRUE = 'true';

/** The string a protocol boolean holds when explicitly unset. */
export const FALSE = 'false';

/** Annotation keys of the protocol, one per role. */
export interface ProtocolAnnotations {
  /**
   * Agent writes `"true"` when the OS needs a reboot (update staged, sentinel file present) and
   * `"false"` after booting. The coordinator only reads it.
   */
  readonly rebootNeeded: string;
  /**
   * Coordinator writes `"true"` to grant a reboot; withdraws it (removes it, or writes `"false"`
   * in FLUO mode) once the reboot is verified and the after-reboot hooks passed. The agent reboots
   * only when it sees `reboot-ok` and `reboot-needed` both `"true"`.
   */
  readonly rebootOk: string;
  /** Agent writes `"true"` while it cordons, drains and reboots; `"false"` after boot. */
  readonly rebootInProgress: string;
  /**
   * Administrator writes `"true"` to keep a node from being scheduled for a reboot. A paused node
   * does not ask; a paused node that was waiting for its grant has its request revoked.
   */
  readonly rebootPaused: string;
  /** Agent writes the update engine's status (one of {@link UPDATE_STATUSES}); informational. */
  readonly status: string;
  /** Agent writes the OS version the pending update brings; informational. */
  readonly newVersion: string;
  /** Agent writes the unix time in seconds of the update engine's last check; informational. */
  readonly lastCheckedTime: string;
  /**
   * Agent writes `"true"` when it cordoned the node itself, `"false"` after uncordoning it, so it
   * only ever uncordons what it cordoned.
   */
  readonly agentMadeUnschedulable: string;
}

/** Label keys of the protocol, one per role. */
export interface ProtocolLabels {
  /** Agent mirrors the `reboot-needed` annotation as a label, for selectors. */
  readonly rebootNeeded: string;
  /**
   * Coordinator sets `"true"` when it schedules a node (reserving a slot of its group's budget)
   * and removes it when the node is granted or its request is revoked. Other controllers watch
   * this label, do their pre-reboot work, and set the group's before-reboot annotations to
   * `"true"`.
   */
  readonly beforeReboot: string;
  /**
   * Coordinator sets `"true"` once a reboot is verified and removes it when it releases the node.
   * Other controllers watch it and set the group's after-reboot annotations to `"true"`.
   */
  readonly afterReboot: string;
  /** Agent writes the OS `ID` from /etc/os-release. */
  readonly id: string;
  /** Agent writes the OS `VERSION` from /etc/os-release. */
  readonly version: string;
  /** Agent writes the OS update group (channel). */
  readonly group: string;
}

/** The keys of the annotation protocol under one prefix, and how it spells a withdrawn boolean. */
export interface Protocol {
  /** `'capstan'` or `'fluo'`; custom prefixes are named after the prefix. */
  readonly name: string;
  /** Prefix of every key, ending in `/`. */
  readonly prefix: string;
  readonly annotations: ProtocolAnnotations;
  readonly labels: ProtocolLabels;
  /**
   * How the coordinator withdraws `reboot-ok`: `'remove'` deletes the annotation (ours), `'false'`
   * writes the string `"false"` (FLUO's operator does exactly this, and FLUO agents expect it).
   * Readers treat an absent key and `"false"` alike.
   */
  readonly withdraw: 'remove' | 'false';
}

/**
 * Builds the keys of the protocol under `prefix` (which must end in `/`).
 * @param withdraw how `reboot-ok` is withdrawn; see {@link Protocol.withdraw}.
 */
export function protocolFor(
  prefix: string,
  name = prefix,
  withdraw: Protocol['withdraw'] = 'remove',
): Protocol {
  if (!prefix.endsWith('/')) throw new Error(`protocol prefix must end in '/': ${prefix}`);
  const key = (role: string): string => `${prefix}${role}`;
  return Object.freeze({
    name,
    prefix,
    withdraw,
    annotations: Object.freeze({
      rebootNeeded: key('reboot-needed'),
      rebootOk: key('reboot-ok'),
      rebootInProgress: key('reboot-in-progress'),
      rebootPaused: key('reboot-paused'),
      status: key('status'),
      newVersion: key('new-version'),
      lastCheckedTime: key('last-checked-time'),
      agentMadeUnschedulable: key('agent-made-unschedulable'),
    }),
    labels: Object.freeze({
      rebootNeeded: key('reboot-needed'),
      beforeReboot: key('before-reboot'),
      afterReboot: key('after-reboot'),
      id: key('id'),
      version: key('version'),
      group: key('group'),
    }),
  });
}

/** Our protocol: keys under `reboot.capstan.dev/`; `reboot-ok` is withdrawn by removing it. */
export const capstanProtocol: Protocol = protocolFor(CAPSTAN_PREFIX, 'capstan', 'remove');

/**
 * FLUO's protocol, spoken exactly: keys under `flatcar-linux-update.v1.flatcar-linux.net/`,
 * `reboot-ok` withdrawn by writing `"false"`. Use it to coordinate FLUO agents.
 */
export const fluoProtocol: Protocol = protocolFor(FLUO_PREFIX, 'fluo', 'false');

/** Protocol names accepted by `--protocol` (agent and coordinator alike). */
export const PROTOCOL_NAMES = ['capstan', 'fluo'] as const;

/** One of {@link PROTOCOL_NAMES}. */
export type ProtocolName = (typeof PROTOCOL_NAMES)[number];

/**
 * The protocol called `name` (default {@link capstanProtocol}), or the protocol itself.
 * @throws RangeError for a name that is not one of {@link PROTOCOL_NAMES}.
 */
export function protocolOf(protocol: ProtocolName | Protocol | undefined): Protocol {
  if (protocol === undefined || protocol === 'capstan') return capstanProtocol;
  if (protocol === 'fluo') return fluoProtocol;
  if (typeof protocol === 'string') throw new RangeError(`unknown protocol "${protocol}" (capstan or fluo)`);
  return protocol;
}

/** The update engine statuses an agent may write to the `status` annotation. */
export const UPDATE_STATUSES = [
  'UPDATE_STATUS_IDLE',
  'UPDATE_STATUS_CHECKING_FOR_UPDATE',
  'UPDATE_STATUS_UPDATE_AVAILABLE',
  'UPDATE_STATUS_DOWNLOADING',
  'UPDATE_STATUS_VERIFYING',
  'UPDATE_STATUS_FINALIZING',
  'UPDATE_STATUS_UPDATED_NEED_REBOOT',
  'UPDATE_STATUS_REPORTING_ERROR_EVENT',
] as const;

/** One of {@link UPDATE_STATUSES}. */
export type UpdateStatus = (typeof UPDATE_STATUSES)[number];

/**
 * Reads a protocol boolean: `true` only for the exact string `"true"`. Absent and `"false"` are
 * false; anything else is false too, and reported as `garbage` so callers can say so.
 */
export function readFlag(
  values: Readonly<Record<string, string>> | undefined,
  key: string,
): { value: boolean; garbage: boolean } {
  const raw = values?.[key];
  if (raw === undefined || raw === FALSE) return { value: false, garbage: false };
  if (raw === TRUE) return { value: true, garbage: false };
  return { value: false, garbage: true };
}
