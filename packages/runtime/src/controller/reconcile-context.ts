import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.js';
import { ReconcileSignal } from './reconcile-signal.js';
import type { ReconcileContext } from './reconciler.js';
import type { Request } from './request.js';

/**
 * The {@link ReconcileContext} of one reconcile. Its parts are made on first read, because most
 * reconciles read none of them: the signal (see {@link ReconcileSignal}), the child logger, and the
 * reconcile id (a random UUID, the same one in the logger's lines and in `reconcileId`).
 */
export class LazyReconcileContext implements ReconcileContext {
  readonly abortable: ReconcileSignal;
  private id: string | undefined;
  private childLog: Logger | undefined;

  constructor(
    private readonly request: Request,
    private readonly controllerLog: Logger,
    stop: AbortSignal,
  ) {
    this.abortable = new ReconcileSignal(stop);
  }

  get signal(): AbortSignal {
    return this.abortable.signal;
  }

  get reconcileId(): string {
    this.id ??= randomUUID();
    return this.id;
  }

  get log(): Logger {
    this.childLog ??= this.controllerLog.child({
      namespace: this.request.namespace,
      name: this.request.name,
      reconcileId: this.reconcileId,
    });
    return this.childLog;
  }
}
