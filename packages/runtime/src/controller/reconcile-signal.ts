/**
 * A reconcile's own abort signal, made only when the reconciler asks for it: most reconciles never
 * read `ctx.signal`, and an AbortController plus a listener on the controller's stop signal per
 * reconcile was a tenth of the controller's CPU time on a cache-only read.
 *
 * The semantics are those of a signal made up front: it aborts when the controller stops or the
 * reconcile times out, whichever happens first (that one's reason wins), and a signal made after
 * either is aborted already, with that reason. Listeners left on it die with it.
 */

/** Why a reconcile's signal aborts when its controller stops. */
export const stoppingReason = (): Error => new Error('controller stopping');

export class ReconcileSignal {
  private controller: AbortController | undefined;
  /** The reason of an abort that happened before the signal was made. */
  private early: unknown;
  private earlySet = false;
  private readonly onStop = () => this.controller?.abort(stoppingReason());

  constructor(private readonly stop: AbortSignal) {}

  /** The signal, made on first read; aborted already if the stop or the timeout came before. */
  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    const controller = new AbortController();
    this.controller = controller;
    if (this.earlySet) controller.abort(this.early);
    else if (this.stop.aborted) controller.abort(stoppingReason());
    else this.stop.addEventListener('abort', this.onStop, { once: true });
    return controller.signal;
  }

  /** Aborts with `reason` unless an abort (a stop included) came first. */
  abort(reason: unknown): void {
    if (this.controller) {
      this.controller.abort(reason);
      return;
    }
    if (this.earlySet) return;
    this.earlySet = true;
    // A stop before this abort would have aborted a signal made up front: its reason wins.
    this.early = this.stop.aborted ? stoppingReason() : reason;
  }

  /** The reason of the first abort so far, or undefined while nothing aborted it. */
  get reason(): unknown {
    if (this.controller) return this.controller.signal.reason;
    if (this.earlySet) return this.early;
    return this.stop.aborted ? stoppingReason() : undefined;
  }

  /** The reconcile ended: stop listening to the controller's stop signal. */
  dispose(): void {
    if (this.controller) this.stop.removeEventListener('abort', this.onStop);
  }
}
