/**
 * Task reads shared by the machines that recorded the same task. A batch's recompose is one task
 * recorded by every machine whose VM it makes (see `machine/create-batch.ts`), and each of them
 * polled it on its own: 25 GETs of one task, from the site's request budget, to learn one thing.
 * Here a read of a task is shared: reads of one href in flight at once are one GET; an ended task
 * never changes again, so its read is kept for whoever asks next; a running one is believed only
 * briefly (less than a poll), so a member learns of the end at most that much later. Nothing is
 * decided on a shared read that the machine's own read would not have said at most that long ago.
 */
import type { Clock } from '@capstan/runtime';
import { type Task, taskRunning, type VcdClient } from './vcd/client.js';

/** How long a task read is believed, by what it said. */
export interface TaskReadSharing {
  /** A running (or queued) task: it may end any moment, so less than a poll. */
  runningMs: number;
  /** An ended task: it stays as it ended, so as long as the last member may take to ask. */
  endedMs: number;
}

/** The default: half the shortest poll for a running task, a minute for an ended one. */
export const DEFAULT_TASK_READ_SHARING: TaskReadSharing = { runningMs: 500, endedMs: 60_000 };

/** A task as read: asked at `at`, answered at `receivedAt` (ms, the reader's clock). */
export interface TaskRead {
  task: Task;
  at: number;
  /** When VCD's answer came: an ended task ended before then. */
  receivedAt: number;
}

/**
 * Whether `read` still answers for the task at `now`: an ended task for `endedMs`, a running one
 * for `runningMs`; never a read from the future (a clock that went back).
 */
export function reusable(read: Omit<TaskRead, 'receivedAt'>, now: number, sharing: TaskReadSharing): boolean {
  const age = now - read.at;
  if (age < 0) return false;
  return age <= (taskRunning(read.task) ? sharing.runningMs : sharing.endedMs);
}

/** Per VCD session, the last read of each task href and the reads in flight. */
export class SharedTaskReads {
  private readonly sessions = new WeakMap<VcdClient, Map<string, TaskRead>>();
  private readonly inFlight = new WeakMap<VcdClient, Map<string, Promise<TaskRead>>>();

  constructor(
    private readonly clock: Clock,
    readonly sharing: TaskReadSharing = DEFAULT_TASK_READ_SHARING,
  ) {}

  /** The task at `href`: a read still believed, the read in flight, or one GET (a failure is not kept). */
  read(vcd: VcdClient, href: string): Promise<TaskRead> {
    const reads = this.reads(vcd);
    const kept = reads.get(href);
    if (kept && reusable(kept, this.clock.now(), this.sharing)) return Promise.resolve(kept);
    let flights = this.inFlight.get(vcd);
    if (!flights) {
      flights = new Map();
      this.inFlight.set(vcd, flights);
    }
    const running = flights.get(href);
    if (running) return running;
    const at = this.clock.now();
    const flight = vcd.task(href).then(
      (task) => {
        this.prune(reads);
        const read = { task, at, receivedAt: this.clock.now() };
        reads.set(href, read);
        return read;
      },
      (err: unknown) => {
        reads.delete(href);
        throw err;
      },
    );
    const done = () => flights.delete(href);
    flight.then(done, done);
    flights.set(href, flight);
    return flight;
  }

  /** Task reads kept for `vcd` (for tests). */
  kept(vcd: VcdClient): number {
    return this.sessions.get(vcd)?.size ?? 0;
  }

  private reads(vcd: VcdClient): Map<string, TaskRead> {
    let reads = this.sessions.get(vcd);
    if (!reads) {
      reads = new Map();
      this.sessions.set(vcd, reads);
    }
    return reads;
  }

  /** Drops reads no longer believed, so ended tasks do not pile up. */
  private prune(reads: Map<string, TaskRead>): void {
    const now = this.clock.now();
    for (const [href, read] of reads) if (!reusable(read, now, this.sharing)) reads.delete(href);
  }
}
