/**
 * One machine at a time per vApp, within this process: the machines of a cluster share one vApp,
 * and a VM create (recomposeVApp) locks it in VCD. Two workers that both read it idle would both
 * send a create and VCD would refuse the second (BUSY_ENTITY): a wasted call and a flapping Ready.
 * Taking turns around read → decide → write lets the second see the first's task instead.
 */
export class VAppTurns {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` once every earlier turn on `vapp` has ended (however it ended). */
  async take<T>(vapp: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(vapp) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = before.then(() => mine);
    this.tails.set(vapp, tail);
    await before;
    try {
      return await work();
    } finally {
      release();
      // The last in line clears the entry, so idle vApps hold no memory.
      if (this.tails.get(vapp) === tail) this.tails.delete(vapp);
    }
  }

  /** vApps with a turn running or waiting (for tests). */
  get size(): number {
    return this.tails.size;
  }
}
