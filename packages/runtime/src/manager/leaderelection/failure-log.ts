/**
 * Which lease failures are worth a warning. An elector retries every 2 s; a failure that repeats
 * (a 403 from missing RBAC, a namespace that does not exist) is said once, clearly, with what to
 * do, and then only at debug level until the next success or a different failure.
 */
import { ApiError } from '../../api/errors.js';

/** What to tell about one failed lease request. */
export interface LeaseFailureReport {
  level: 'warn' | 'debug';
  message: string;
}

/** Remembers the last failure said at warn level; forgets it on success. */
export class LeaseFailureLog {
  private last: string | undefined;

  /**
   * The report for a failure of `action` (`read`, `create`, `update`, `release`) on the lease
   * `namespace/name`: `warn` the first time this failure is seen in a row, `debug` after.
   */
  report(action: string, namespace: string, name: string, err: unknown): LeaseFailureReport {
    const message = describeLeaseFailure(action, namespace, name, err);
    const level = message === this.last ? 'debug' : 'warn';
    this.last = message;
    return { level, message };
  }

  /** A request succeeded: the next failure is news again. */
  succeeded(): void {
    this.last = undefined;
  }
}

/** The sentence for a failed lease request, with the fix for the failures that need a person. */
export function describeLeaseFailure(action: string, namespace: string, name: string, err: unknown): string {
  const lease = `lease ${namespace}/${name}`;
  if (err instanceof ApiError && err.code === 403)
    return (
      `cannot ${action} the ${lease}: forbidden. Grant this identity get, create and update on ` +
      `leases (coordination.k8s.io) in namespace "${namespace}", or choose the namespace with ` +
      '--leader-election-namespace'
    );
  if (err instanceof ApiError && err.code === 404 && action === 'create')
    return `cannot create the ${lease}: namespace "${namespace}" does not exist (--leader-election-namespace)`;
  const why = err instanceof Error ? err.message : String(err);
  return `cannot ${action} the ${lease}: ${why}`;
}
