export { type BackoffCurve, backoffDelay, jittered } from '../backoff-delay.js';
export { isoSeconds, isoTimestamp } from '../iso-time.js';
export {
  type BoundSeries,
  type Distribution,
  type MetricLabels,
  type MetricSpec,
  MetricsFactory,
  Tally,
} from '../metrics/metrics-factory.js';
export {
  type Condition,
  type ConditionInput,
  getCondition,
  isConditionTrue,
  removeCondition,
  setCondition,
} from './conditions.js';
export {
  createOrPatch,
  createOrUpdate,
  type MutateFunction,
  mergePatchBetween,
  type OperationResult,
} from './create-or-update.js';
export {
  type DrainPlan,
  drainPlan,
  EvictionBackoff,
  type EvictionResult,
  type EvictPodsOptions,
  evictPod,
  evictPods,
  forEachBounded,
  MIRROR_POD_ANNOTATION,
  nodePodDrainFacts,
  type PodDrainFacts,
  type PodEviction,
  podDrainFacts,
} from './drain.js';
export { formatDuration, parseDuration, readDuration } from './duration.js';
export { type EventInput, EventRecorder, type EventRecorderOptions } from './event-recorder.js';
export { Expectations, type ExpectationsOptions } from './expectations.js';
export { type FinalizerHandlers, withFinalizer } from './finalizer-lifecycle.js';
export { addFinalizer, hasFinalizer, removeFinalizer } from './finalizers.js';
export { isJsonObject, jsonEqual } from './json-equal.js';
export { labelSelectorFromSpec, matchesSelector, selectorProblems } from './label-selector.js';
export { conditionalMergePatch, type MetadataEdits } from './merge-patch.js';
export {
  AlreadyOwnedError,
  isControlledBy,
  setControllerReference,
  setOwnerReference,
} from './owner-references.js';
export { keepTransitionTimes, type WriteStatusOptions, writeStatusIfChanged } from './write-status.js';
