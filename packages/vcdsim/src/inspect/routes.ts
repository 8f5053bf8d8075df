/** The inspection API over HTTP, under `/inspect/` (JSON, no authentication, no version). */
import { ManualClock } from '@capstan/runtime/testing';
import { errors } from '../server/errors.js';
import { type Ctx, empty, json } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import type { Inspect } from './inspect.js';

async function jsonBody(ctx: Ctx): Promise<Record<string, unknown>> {
  try {
    const v = JSON.parse((await ctx.body()).toString('utf8') || '{}') as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    return v as Record<string, unknown>;
  } catch (e) {
    throw errors.badRequest(`The body is not a JSON object: ${(e as Error).message}`);
  }
}

/** Registers the `/inspect/` routes. */
export function inspectRoutes(r: Router, sim: Simulator, inspect: Inspect): void {
  const open = { auth: false, versioned: false };
  r.add('GET', '/inspect/objects', () => json(200, inspect.objects()), open);
  r.add('GET', '/inspect/tasks', () => json(200, inspect.tasks()), open);
  r.add(
    'GET',
    '/inspect/requests',
    (ctx) => {
      const limit = Number(ctx.query.get('limit') ?? 1000);
      const entries = inspect.requests();
      return json(200, {
        total: inspect.requestTotal(),
        byRoute: inspect.counts('route'),
        byPath: inspect.counts('path'),
        entries: entries.slice(Math.max(0, entries.length - (Number.isFinite(limit) ? limit : 1000))),
      });
    },
    open,
  );
  r.add(
    'DELETE',
    '/inspect/requests',
    () => {
      inspect.resetRequests();
      return empty(204);
    },
    open,
  );
  r.add(
    'GET',
    '/inspect/pools/{network}',
    (ctx) => {
      const p = inspect.pool(ctx.params.network ?? '');
      if (!p) throw errors.notFound(`No network ${ctx.params.network}.`);
      return json(200, p);
    },
    open,
  );
  r.add(
    'POST',
    '/inspect/clock/advance',
    (ctx) => {
      if (!(sim.clock instanceof ManualClock)) throw errors.badRequest('The simulator runs on real time.');
      const ms = Number(ctx.query.get('ms') ?? 0);
      if (!Number.isFinite(ms) || ms < 0) throw errors.badRequest('ms must be a non-negative number.');
      sim.clock.advance(ms);
      return json(200, { now: sim.clock.now() });
    },
    open,
  );
  r.add(
    'POST',
    '/inspect/vms/{vm}/serving',
    async (ctx) => {
      const body = await jsonBody(ctx);
      if (typeof body.serving !== 'boolean') throw errors.badRequest('serving must be a boolean.');
      try {
        inspect.setServing(ctx.params.vm ?? '', body.serving);
      } catch {
        throw errors.notFound(`No VM ${ctx.params.vm}.`);
      }
      return empty(204);
    },
    open,
  );
  r.add(
    'POST',
    '/inspect/faults',
    async (ctx) => {
      const b = await jsonBody(ctx);
      const f = sim.faults;
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
          if (typeof b.ms !== 'number' || b.ms < 0)
            throw errors.badRequest('ms must be a non-negative number.');
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
      return empty(204);
    },
    open,
  );
}
