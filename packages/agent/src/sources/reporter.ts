import { type SourceStatus, sameStatus } from './source.js';

/**
 * Delivers a source's statuses to its listener: only changes, nothing after stop, the last
 * known `rebootNeeded` kept while in error (an outage must not look like "no reboot needed"),
 * and a throwing listener turned into a process warning instead of a crash inside a timer or a
 * D-Bus message handler.
 */
export class StatusReporter {
  private last: SourceStatus | undefined;
  private lastKnownNeeded = false;
  private active = true;

  constructor(private readonly listener: (status: SourceStatus) => void) {}

  /** The last status delivered, if any. */
  get current(): SourceStatus | undefined {
    return this.last;
  }

  /** Reports a status read from the OS. */
  ok(status: Omit<SourceStatus, 'error'>): void {
    this.lastKnownNeeded = status.rebootNeeded;
    this.deliver({ ...status });
  }

  /** Reports that the source cannot tell right now; keeps the last known facts. */
  error(message: string): void {
    const { error: _ignored, ...known } = this.last ?? { rebootNeeded: false };
    this.deliver({ ...known, rebootNeeded: this.lastKnownNeeded, error: message });
  }

  /** Stops all further delivery. */
  close(): void {
    this.active = false;
  }

  private deliver(status: SourceStatus): void {
    if (!this.active || sameStatus(this.last, status)) return;
    this.last = status;
    try {
      this.listener(status);
    } catch (err) {
      process.emitWarning(
        `reboot-needed listener threw: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}
