import { runSchedule } from './conformance-run.js';
import type { ConformanceScenario } from './scenario.js';
import { describeSchedule, type Schedule, scheduleArbitrary } from './schedule.js';

/** Options of {@link checkConformance}. */
export interface ConformanceOptions {
  /** Schedules to try (default 30). */
  numRuns?: number;
  /** fast-check's seed: the same seed tries the same schedules. Default: random (printed on failure). */
  seed?: number;
  /** With `seed`, replays one failing case (fast-check's counterexample path) without searching. */
  path?: string;
  /** Most perturbations in one slot (default 3). */
  perSlot?: number;
}

/** What a search found: the smallest failing schedule, in words and as data, and how to replay it. */
export interface ConformanceReport {
  readonly scenario: string;
  /** The names of the scenario's actions, which the schedule's slots fall between. */
  readonly actions: readonly string[];
  readonly runs: number;
  readonly seed: number;
  /** Undefined when every schedule passed. */
  readonly failure?: {
    readonly violation: string;
    readonly schedule: Schedule;
    readonly path: string | undefined;
  };
}

/** A scenario failed; the message holds the shrunk schedule, the violation and the replay seed. */
export class ConformanceFailure extends Error {
  override readonly name = 'ConformanceFailure';
  constructor(readonly report: ConformanceReport) {
    super(formatFailure(report));
  }
}

/**
 * Searches, with fast-check, for a schedule of perturbations (crashes after writes, stale caches,
 * lost and merged watch events, injected 409/410/429/500/timeouts, clock jumps) under which the
 * scenario fails, and answers what it found, shrunk to the smallest failing schedule. Each run
 * asserts: the invariants after every controller write and every step; convergence to
 * `scenario.converged` once the perturbations stop; zero writes from a fresh process over the
 * converged world; and, with a teardown, no object the controller created left behind.
 * Every run is on a virtual clock, so a seed replays exactly.
 */
export async function searchConformance(
  scenario: ConformanceScenario,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  // Loaded on use: fast-check is an optional peer dependency, needed only by the search.
  const { default: fc } = await import('fast-check');
  const names = scenario.actions.map((a) => a.name);
  const violations = new WeakMap<Schedule, string>();
  const property = fc.asyncProperty(
    scheduleArbitrary(fc, names.length, options.perSlot),
    async (schedule) => {
      const violation = await runSchedule(scenario, schedule);
      if (violation !== undefined) violations.set(schedule, violation);
      return violation === undefined;
    },
  );
  const result = await fc.check(property, {
    numRuns: options.numRuns ?? 30,
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.path !== undefined ? { path: options.path } : {}),
  });
  const base = { scenario: scenario.name, actions: names, runs: result.numRuns, seed: result.seed };
  if (!result.failed) return base;
  const schedule = result.counterexample?.[0];
  if (!schedule) {
    const error = result.errorInstance;
    throw new Error(`conformance search of ${scenario.name} failed without a schedule: ${String(error)}`);
  }
  const violation = violations.get(schedule) ?? String(result.errorInstance);
  return { ...base, failure: { violation, schedule, path: result.counterexamplePath ?? undefined } };
}

/**
 * {@link searchConformance}, failing with a {@link ConformanceFailure} (the smallest failing
 * schedule, what broke, and the seed and path that replay it) when any schedule fails.
 *
 * @example
 * await checkConformance({
 *   name: 'greeting',
 *   kinds: [GreetingType, ConfigMap],
 *   setup: (manager) => addGreeting(manager),
 *   actions: [{ name: 'create hello', run: ({ client }) => client.create(GreetingType, hello) }],
 *   converged: (cluster) => cluster.getObject(ConfigMap, { namespace: 'default', name: 'hello-greeting' }) !== undefined,
 * });
 */
export async function checkConformance(
  scenario: ConformanceScenario,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  const report = await searchConformance(scenario, options);
  if (report.failure) throw new ConformanceFailure(report);
  return report;
}

/** A failure report: what broke, under which schedule, and how to replay it. */
export function formatFailure(report: ConformanceReport): string {
  const f = report.failure;
  if (!f) return `${report.scenario}: ${report.runs} schedules passed (seed ${report.seed})`;
  return [
    `conformance of ${report.scenario} failed: ${f.violation}`,
    'smallest failing schedule:',
    describeSchedule(f.schedule, report.actions),
    `as data: ${JSON.stringify(f.schedule)}`,
    `replay: checkConformance(scenario, { seed: ${report.seed}, path: ${JSON.stringify(f.path)} })`,
    '  or runSchedule(scenario, <the schedule above>)',
  ].join('\n');
}
