/** The reconciler conformance harness: scenarios searched under crashes, stale reads, faults and time. */
export {
  ConformanceFailure,
  type ConformanceOptions,
  type ConformanceReport,
  checkConformance,
  formatFailure,
  searchConformance,
} from './check-conformance.js';
export { runSchedule } from './conformance-run.js';
export type { InjectedAnswer, StaleEnd } from './controller-process.js';
export type { ConformanceScenario, ConformanceUser, UserAction, WorldCheck } from './scenario.js';
export {
  describeSchedule,
  type Perturbation,
  perturbationArbitrary,
  type Schedule,
  scheduleArbitrary,
} from './schedule.js';
