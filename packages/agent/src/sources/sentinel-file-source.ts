import { stat } from 'node:fs/promises';
import type { Clock } from '@capstan/runtime';
import { type CheckResult, PollingSource } from './polling-source.js';

/** Options for {@link SentinelFileSource}. */
export interface SentinelFileSourceOptions {
  /** File whose existence means "reboot needed"; default `/var/run/reboot-required` (Debian/Ubuntu, kured). */
  path?: string;
  /** Poll interval; default 10 s. */
  intervalMs?: number;
  /** The clock the poll runs on; default the wall clock. */
  clock?: Clock;
}

/** Reboot needed while a sentinel file exists. A missing file means not needed; other errors mean "cannot tell". */
export class SentinelFileSource extends PollingSource {
  /** The watched path. */
  readonly path: string;

  constructor(options: SentinelFileSourceOptions = {}) {
    super(options.intervalMs ?? 10_000, options.clock);
    this.path = options.path ?? '/var/run/reboot-required';
  }

  protected override async check(): Promise<CheckResult> {
    try {
      await stat(this.path);
      return { ok: { rebootNeeded: true } };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: { rebootNeeded: false } };
      return { error: `cannot check sentinel file ${this.path}: ${(err as Error).message}` };
    }
  }
}
