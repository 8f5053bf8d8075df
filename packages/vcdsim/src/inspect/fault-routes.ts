/** `POST /inspect/faults`: arms one of the simulator's faults from a JSON description. */
import type { Faults } from '../faults/faults.js';
import { errors } from '../server/errors.js';
import { empty } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { jsonBody } from './body.js';

/** Arms the fault `b` describes (`type` and its fields); a malformed one is a 400. */
function armFault(f: Faults, b: Record<string, unknown>): void {
  const count = typeof b.count === 'number' ? b.count : 1;
  switch (b.type) {
    case 'taskFailure':
      if (typeof b.operationName !== 'string') throw errors.badRequest('operationName is required.');
      f.failTask(b.operationName, {
        count,
        ...(typeof b.message === 'string' ? { message: b.message } : {}),
      });
      break;
    case 'http': {
      const status = b.status as 429 | 500 | 502 | 503 | 504;
      if (![429, 500, 502, 503, 504].includes(status))
        throw errors.badRequest('status must be 429, 500, 502, 503 or 504.');
      f.httpErrors(status, count, {
        ...(typeof b.method === 'string' ? { method: b.method } : {}),
        ...(typeof b.path === 'string' ? { path: b.path } : {}),
      });
      break;
    }
    case 'denyAccess':
      f.denyAccess({
        ...(typeof b.method === 'string' ? { method: b.method } : {}),
        ...(typeof b.path === 'string' ? { path: b.path } : {}),
      });
      break;
    case 'latency':
      if (typeof b.ms !== 'number' || b.ms < 0) throw errors.badRequest('ms must be a non-negative number.');
      f.slow(b.ms, typeof b.path === 'string' ? { path: b.path } : {});
      break;
    case 'expireTokens':
      f.expireTokens();
      break;
    case 'exhaustIpPool':
      if (typeof b.network !== 'string') throw errors.badRequest('network is required.');
      f.exhaustIpPool(b.network);
      break;
    case 'clear':
      f.clear();
      break;
    default:
      throw errors.badRequest(
        'type must be taskFailure, http, denyAccess, latency, expireTokens, exhaustIpPool or clear.',
      );
  }
}

/** Registers the fault route (no authentication, no version, as all of `/inspect/`). */
export function faultRoutes(r: Router, sim: Simulator): void {
  r.add(
    'POST',
    '/inspect/faults',
    async (ctx) => {
      armFault(sim.faults, await jsonBody(ctx));
      return empty(204);
    },
    { auth: false, versioned: false },
  );
}
