import { apiError } from '../../../src/api/errors.js';
import type { ResourceType } from '../../../src/api/types.js';
import type { ApiTransport } from '../../../src/transport/transport.js';

/** A replica's view of the API server in which its Lease requests can be cut off. */
export interface LeaseOutage {
  readonly transport: ApiTransport;
  /** From now on every Lease request fails with 503, as if the server were unreachable. */
  cut(): void;
  /** Lease requests go through again. */
  restore(): void;
}

/**
 * Wraps `transport` so a test can stop one replica's lease renewals the way a network partition
 * would, while its other requests (cache, reconciles) keep working.
 */
export function leaseOutage(transport: ApiTransport): LeaseOutage {
  let cut = false;
  const wrapped = new Proxy(transport, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const type = args[0] as ResourceType | undefined;
        if (cut && type?.kind === 'Lease') {
          return Promise.reject(apiError(503, 'ServiceUnavailable', 'lease outage (test)'));
        }
        return value.apply(target, args);
      };
    },
  });
  return {
    transport: wrapped,
    cut: () => {
      cut = true;
    },
    restore: () => {
      cut = false;
    },
  };
}
