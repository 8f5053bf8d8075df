/** The inspection API over HTTP, under `/inspect/` (JSON, no authentication, no version). */
import { ManualClock } from '@capstan/runtime/testing';
import { errors } from '../server/errors.js';
import { empty, json } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { jsonBody } from './body.js';
import { faultRoutes } from './fault-routes.js';
import type { Inspect } from './inspect.js';

/** Registers the `/inspect/` routes. */
export function inspectRoutes(r: Router, sim: Simulator, inspect: Inspect): void {
  const open = { auth: false, versioned: false };
  r.add('GET', '/inspect/objects', () => json(200, inspect.objects()), open);
  r.add('GET', '/inspect/tasks', () => json(200, inspect.tasks()), open);
  requestLogRoutes(r, inspect);
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
  faultRoutes(r, sim);
}

/** The request log: counts by route and path, the latest entries, and a reset. */
function requestLogRoutes(r: Router, inspect: Inspect): void {
  const open = { auth: false, versioned: false };
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
}
