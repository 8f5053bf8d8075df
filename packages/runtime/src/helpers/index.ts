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
export { type EventInput, EventRecorder, type EventRecorderOptions } from './event-recorder.js';
export { addFinalizer, hasFinalizer, removeFinalizer } from './finalizers.js';
export {
  AlreadyOwnedError,
  isControlledBy,
  setControllerReference,
  setOwnerReference,
} from './owner-references.js';
