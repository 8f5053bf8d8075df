/**
 * Runs every asynchronous operation as a VCD Task on the simulator's clock: queued, then running
 * (with progress), then the operation's effect is applied and the task ends in success, or in error
 * when the effect throws or a fault says so. While a task is not finished, the entities it locks
 * are busy: a second operation on them is refused with BUSY_ENTITY, as VCD does.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '@capstan/runtime';
import type { Faults } from '../faults/faults.js';
import { errors, VcdError } from '../server/errors.js';
import { isTerminal, step, type TaskEvent, type TaskState } from './machine.js';

/** What a task acts on: rendered as the task's Owner reference. */
export interface OwnerRef {
  /** Media type of the owner, e.g. `application/vnd.vmware.vcloud.vm+xml`. */
  type: string;
  name: string;
  /** Path of the owner's href, e.g. `/api/vApp/vm-<uuid>`. */
  path: string;
  /** URN, e.g. `urn:vcloud:vm:<uuid>`. */
  urn: string;
}

/** A task as kept in the history. */
export interface Task extends TaskState {
  id: string;
  operationName: string;
  operation: string;
  owner: OwnerRef;
  orgId: string;
  userName: string;
  startTime: number;
  endTime?: number;
  expiryTime: number;
  /** Entity keys the task holds busy until it ends. */
  locks: string[];
  /** What the finished task returns (VCD's `Result/ResultContent`, e.g. allocated IPs as JSON). */
  result?: string;
}

/** An operation to run as a task. */
export interface TaskSpec {
  operationName: string;
  operation: string;
  owner: OwnerRef;
  orgId: string;
  userName: string;
  /** Entity keys to hold busy (e.g. `vm:<uuid>`, `vapp:<uuid>`). */
  locks: string[];
  /**
   * Applies the operation's effect at the end; a thrown VcdError fails the task with it. A string
   * it returns is the task's result content.
   */
  effect: () => unknown;
  /** Undoes anything done up front when the task fails or is aborted. */
  onFailure?: () => void;
}

/** How long tasks take, per operation name (falls back to `defaultMs`). */
export interface TaskLatency {
  defaultMs: number;
  perOperation?: Record<string, number>;
}

/** Task scheduling, history and busy-entity locks. */
export class TaskRunner {
  readonly tasks = new Map<string, Task>();
  // Invariant: #open holds exactly the tasks not in a terminal state; #busy maps each lock of an
  // open task to it (so renders and busy checks never scan the whole history).
  readonly #open = new Set<Task>();
  readonly #busy = new Map<string, Task>();
  readonly #specs = new Map<string, TaskSpec>();

  constructor(
    private readonly clock: Clock,
    private readonly faults: Faults,
    public latency: TaskLatency,
  ) {}

  /**
   * Throws BUSY_ENTITY when one of the keys is held by an unfinished task, naming the entity and
   * the operation as VCD does (`com.vmware.vcloud.entity.vm:<uuid>`, `VAPP_UPDATE_VM`).
   */
  assertFree(keys: string[], ownerUrn: string): void {
    for (const k of keys) {
      const t = this.#busy.get(k);
      if (!t) continue;
      const entity = ownerUrn.replace(/^urn:vcloud:([^:]+):/, 'com.vmware.vcloud.entity.$1:');
      const operation = t.operationName.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
      throw errors.busyEntity(entity, operation, t.id);
    }
  }

  /** True when the key is held by an unfinished task. */
  isBusy(key: string): boolean {
    return this.#busy.has(key);
  }

  /** Starts a task (after checking its locks are free) and returns it in state queued. */
  start(spec: TaskSpec): Task {
    this.assertFree(spec.locks, spec.owner.urn);
    const now = this.clock.now();
    const task: Task = {
      id: randomUUID(),
      operationName: spec.operationName,
      operation: spec.operation,
      owner: spec.owner,
      orgId: spec.orgId,
      userName: spec.userName,
      status: 'queued',
      progress: 0,
      cancelRequested: false,
      startTime: now,
      expiryTime: now + 30 * 86400_000,
      locks: spec.locks,
    };
    this.tasks.set(task.id, task);
    this.#open.add(task);
    this.#specs.set(task.id, spec);
    for (const k of spec.locks) this.#busy.set(k, task);
    const ms = this.latency.perOperation?.[spec.operationName] ?? this.latency.defaultMs;
    this.clock.setTimeout(() => this.#apply(task, { type: 'start' }), ms * 0.1);
    this.clock.setTimeout(() => this.#apply(task, { type: 'progress', percent: 50 }), ms * 0.5);
    this.clock.setTimeout(() => this.#finish(task), ms);
    return task;
  }

  /** Asks a task to stop; an unfinished task ends aborted and its effect is not applied. */
  cancel(id: string): void {
    const task = this.tasks.get(id);
    if (!task) return;
    this.#apply(task, { type: 'cancel' });
    this.#apply(task, { type: 'abort' });
  }

  /** Tasks that have not finished. */
  unfinished(): Task[] {
    return [...this.#open];
  }

  #finish(task: Task): void {
    if (isTerminal(task.status)) return;
    this.#apply(task, { type: 'start' });
    const spec = this.#specs.get(task.id)!;
    const fault = this.faults.takeTaskFailure(task.operationName);
    if (fault) {
      this.#apply(task, { type: 'fail', error: fault });
      return;
    }
    try {
      const result = spec.effect();
      if (typeof result === 'string') task.result = result;
      this.#apply(task, { type: 'succeed' });
    } catch (e) {
      const err = e instanceof VcdError ? e : errors.internal((e as Error).message);
      this.#apply(task, { type: 'fail', error: err });
    }
  }

  #apply(task: Task, event: TaskEvent): void {
    const next = step(task, event);
    if (next === task) return;
    Object.assign(task, next);
    if (isTerminal(task.status)) {
      task.endTime = this.clock.now();
      this.#open.delete(task);
      for (const k of task.locks) if (this.#busy.get(k) === task) this.#busy.delete(k);
      const spec = this.#specs.get(task.id);
      this.#specs.delete(task.id);
      if (task.status !== 'success') spec?.onFailure?.();
    }
  }
}
