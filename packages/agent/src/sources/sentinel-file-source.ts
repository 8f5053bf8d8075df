import { realpath, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '@capstan/runtime';
import { MOUNTINFO_PATH, notAHostMount } from './host-mount.js';
import { type CheckResult, PollingSource } from './polling-source.js';

/** Options for {@link SentinelFileSource}. */
export interface SentinelFileSourceOptions {
  /** File whose existence means "reboot needed"; default `/var/run/reboot-required` (Debian/Ubuntu, kured). */
  path?: string;
  /** Poll interval; default 10 s. */
  intervalMs?: number;
  /** The clock the poll runs on; default the wall clock. */
  clock?: Clock;
  /**
   * Where to read this process's mounts for the start-up check that the file's directory is a
   * volume, not the container's own filesystem; default `/proc/self/mountinfo`. `false` skips it.
   */
  mountInfoPath?: string | false;
}

/** What to do about a directory the agent cannot look into. */
const HINT =
  "mount the host's /run read-only at /host/run and pass --reboot-sentinel=/host/run/reboot-required (docs/os/ubuntu.md)";

/**
 * Reboot needed while a sentinel file exists. It tells "missing" (no reboot needed: the
 * directory is there, the file is not) from "cannot look" (the directory is missing, not a
 * volume, or unreadable): the latter is an error status, never a silent "no".
 */
export class SentinelFileSource extends PollingSource {
  /** The watched path. */
  readonly path: string;
  private readonly mountInfoPath: string | false;
  /** Why the directory cannot be the host's, found at the first check. */
  private notMounted: string | undefined;
  private mountChecked = false;

  constructor(options: SentinelFileSourceOptions = {}) {
    super(options.intervalMs ?? 10_000, options.clock);
    this.path = options.path ?? '/var/run/reboot-required';
    this.mountInfoPath = options.mountInfoPath ?? MOUNTINFO_PATH;
  }

  protected override async check(): Promise<CheckResult> {
    const dir = dirname(this.path);
    if (!this.mountChecked) {
      this.mountChecked = true;
      this.notMounted = await this.hostMountProblem(dir);
    }
    if (this.notMounted !== undefined)
      return { error: `cannot look for sentinel file ${this.path}: ${this.notMounted}; ${HINT}` };
    try {
      await stat(this.path);
      return { ok: { rebootNeeded: true } };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT')
        return { error: `cannot look for sentinel file ${this.path}: ${(err as Error).message}` };
    }
    // Missing: a real "no" only if the directory it would be in is there to look at.
    try {
      if ((await stat(dir)).isDirectory()) return { ok: { rebootNeeded: false } };
      return { error: `cannot look for sentinel file ${this.path}: ${dir} is not a directory; ${HINT}` };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT' || code === 'ENOTDIR' ? `directory ${dir} does not exist` : (err as Error).message;
      return { error: `cannot look for sentinel file ${this.path}: ${why}; ${HINT}` };
    }
  }

  private async hostMountProblem(dir: string): Promise<string | undefined> {
    if (this.mountInfoPath === false) return undefined;
    let resolved: string;
    try {
      resolved = await realpath(dir);
    } catch {
      return undefined; // a missing directory is reported on every check
    }
    return notAHostMount(resolved, this.mountInfoPath);
  }
}
