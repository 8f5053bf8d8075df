/**
 * The VCD-bound ideal of the scale row: the soonest N machines can be Running (or their VMs gone)
 * when every VCD task takes `taskMs` and capvcd may send a site `burst` requests at once and then
 * `qps` a second (its own per-site request budget, `--vcd-qps` / `--vcd-burst`).
 *
 *   chain = tasksInChain × taskMs + bootMs
 *     one machine's tasks run in order (create: recompose adding its VM, reconfigure with its
 *     guestinfo, power on; then the guest boots). VCD lets every waiting VM join one recompose and
 *     runs different VMs' tasks side by side, so the chain does not grow with N.
 *   rate  = max(0, N × callsPerMachine − burst) / qps
 *     the calls N machines need cannot be sent faster than the site budget lets them.
 *   ideal = max(chain, rate)
 */

/** What the ideal depends on. */
export interface IdealInputs {
  machines: number;
  /** Tasks one machine's VM goes through, in order. */
  tasksInChain: number;
  /** vcdsim's task latency. */
  taskMs: number;
  /** From the last task to done: the guest's boot for a create, 0 for a delete. */
  bootMs: number;
  /** VCD calls one machine may take (the row's call budget, cluster-level calls shared out). */
  callsPerMachine: number;
  /** capvcd's per-site budget: requests a second in the long run, and at once after a quiet spell. */
  qps: number;
  burst: number;
}

/** The chain bound: one machine's tasks in order, then its boot. */
export const chainMs = (i: IdealInputs): number => i.tasksInChain * i.taskMs + i.bootMs;

/** The request-budget bound: every machine's calls through the site's burst, then at `qps`. */
export const rateMs = (i: IdealInputs): number =>
  (Math.max(0, i.machines * i.callsPerMachine - i.burst) / i.qps) * 1000;

/** The VCD-bound ideal in ms: the larger of the chain and the request budget. */
export function idealMs(i: IdealInputs): number {
  if (!(i.qps > 0)) throw new Error(`the ideal needs a positive qps, got ${i.qps}`);
  return Math.max(chainMs(i), rateMs(i));
}

/** The formula with these inputs' numbers, as the row prints it. */
export function idealFormula(i: IdealInputs): string {
  const s = (ms: number) => (ms / 1000).toFixed(1);
  return (
    `max(${i.tasksInChain} tasks × ${s(i.taskMs)} s + ${s(i.bootMs)} s boot = ${s(chainMs(i))} s, ` +
    `(${i.machines} × ${i.callsPerMachine} calls − burst ${i.burst}) / ${i.qps} qps = ${s(rateMs(i))} s)`
  );
}
