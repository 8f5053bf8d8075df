/** What a reboot-needed source currently knows. */
export interface SourceStatus {
  /** Whether this node should be rebooted. On `error`, the last known value (false if none). */
  rebootNeeded: boolean;
  /** update_engine's `UPDATE_STATUS_*` string, for the `status` annotation. */
  status?: string;
  /** Version that will run after the reboot, when known. */
  newVersion?: string;
  /** Unix seconds of the last update check (update_engine reports int64 as BigInt). */
  lastCheckedTime?: bigint | number;
  /** Set while the source cannot tell (bus down, service missing, command failed). */
  error?: string;
}

/**
 * Something that learns from the OS whether a reboot is needed: update_engine over D-Bus, a
 * sentinel file, a sentinel command. Sources never throw after `start`: trouble becomes a status
 * with `error` set, so a flaky bus can never crash the agent.
 */
export interface RebootNeededSource {
  /**
   * Starts watching; resolves once the first status has been reported to `onChange`. `onChange`
   * is then called again only when the status changes.
   */
  start(onChange: (status: SourceStatus) => void): Promise<void>;
  /** Stops watching; no `onChange` call happens after it resolves. */
  stop(): Promise<void>;
}

/** Whether two statuses would look the same to the agent (used to report changes only). */
export function sameStatus(a: SourceStatus | undefined, b: SourceStatus): boolean {
  return (
    a !== undefined &&
    a.rebootNeeded === b.rebootNeeded &&
    a.status === b.status &&
    a.newVersion === b.newVersion &&
    // Compare as bigint so 5 and 5n are equal.
    (a.lastCheckedTime === undefined) === (b.lastCheckedTime === undefined) &&
    (a.lastCheckedTime === undefined || BigInt(a.lastCheckedTime) === BigInt(b.lastCheckedTime ?? 0)) &&
    a.error === b.error
  );
}
