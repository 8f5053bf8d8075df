/**
 * The harness's own apiserver calls (kwok node reboots, node creation) must not fail because the
 * suite restarted the apiserver under them: that would be a broken simulation, not a fault the
 * operators are meant to survive. Shared sections run together; an exclusive one (a restart) waits
 * for them to end and holds new ones back. The operators are never gated.
 */
export class HarnessGate {
  private active = 0;
  private exclusiveRun: Promise<unknown> | undefined;
  private readonly idle: Array<() => void> = [];

  /** Runs `fn` when no exclusive section runs. */
  async shared<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusiveRun) await this.exclusiveRun.catch(() => {});
    this.active += 1;
    try {
      return await fn();
    } finally {
      this.active -= 1;
      if (this.active === 0) for (const wake of this.idle.splice(0)) wake();
    }
  }

  /** Runs `fn` alone: after the shared sections in progress, before any new one. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusiveRun) await this.exclusiveRun.catch(() => {});
    const run = (async () => {
      while (this.active > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
      return fn();
    })();
    this.exclusiveRun = run;
    try {
      return await run;
    } finally {
      this.exclusiveRun = undefined;
    }
  }
}
