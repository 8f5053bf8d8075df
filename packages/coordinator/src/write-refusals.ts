/**
 * Nodes whose writes the API server refuses for a reason a retry of the same round cannot fix
 * (422: annotations near the size limit; 403: an admission policy; 400). One such node must not
 * stop coordination: its writes are skipped while it is backed off, the planner is told (its queue
 * passes it over, its group reports it), and the rest of the round goes on. The memory is the
 * coordinator's own and short-lived: a restart retries at once, which is harmless.
 */
import { ApiError, backoffDelay, isConflict, isNotFound, isTooManyRequests } from '@capstan/runtime';
import type { RefusedNode } from './decide/queue.js';

/** First backoff after a refusal; doubles per refusal in a row up to {@link MAX_REFUSAL_BACKOFF_MS}. */
export const FIRST_REFUSAL_BACKOFF_MS = 5_000;
/** The longest a refused node waits before its writes are tried again. */
export const MAX_REFUSAL_BACKOFF_MS = 5 * 60_000;

/** Whether `err` is the server refusing this write for good (not a conflict, not a transient error). */
export function isRefusal(err: unknown): err is ApiError {
  if (!(err instanceof ApiError)) return false;
  if (isConflict(err) || isNotFound(err) || isTooManyRequests(err)) return false;
  return err.code >= 400 && err.code < 500;
}

interface Refusal {
  attempts: number;
  until: number;
  message: string;
}

/** The refused nodes of one coordinator, with their backoff. */
export class WriteRefusals {
  private readonly byNode = new Map<string, Refusal>();

  /** Records a refusal of a write to `node`; returns the backoff it starts. */
  record(node: string, err: ApiError, now: number): number {
    const attempts = (this.byNode.get(node)?.attempts ?? 0) + 1;
    const backoff = backoffDelay(attempts - 1, {
      initialMs: FIRST_REFUSAL_BACKOFF_MS,
      maxMs: MAX_REFUSAL_BACKOFF_MS,
    });
    const message = `writes to node ${node} are refused (${err.code} ${err.reason}: ${err.message}); retrying in ${Math.round(backoff / 1000)}s`;
    this.byNode.set(node, { attempts, until: now + backoff, message });
    return backoff;
  }

  /** A write to `node` landed: it is no longer refused. */
  clear(node: string): void {
    this.byNode.delete(node);
  }

  /** Whether writes to `node` wait at `now`. */
  isBackedOff(node: string, now: number): boolean {
    const r = this.byNode.get(node);
    return r !== undefined && now < r.until;
  }

  /**
   * Every refused node and why, for the planner: reported until a write to it lands, passed over
   * by its queue only while backed off (after that it may take a slot and be tried again).
   */
  refused(now: number): Record<string, RefusedNode> {
    return Object.fromEntries(
      [...this.byNode].map(([node, r]) => [node, { message: r.message, backedOff: now < r.until }]),
    );
  }

  /** Milliseconds until the next backed-off node may be tried again, if any is waiting. */
  nextRetryAfter(now: number): number | undefined {
    let next: number | undefined;
    for (const r of this.byNode.values()) {
      if (r.until > now) next = Math.min(next ?? Number.POSITIVE_INFINITY, r.until - now);
    }
    return next;
  }

  /** Forgets nodes no longer in the world. */
  retain(nodes: ReadonlySet<string>): void {
    for (const node of this.byNode.keys()) if (!nodes.has(node)) this.byNode.delete(node);
  }
}
