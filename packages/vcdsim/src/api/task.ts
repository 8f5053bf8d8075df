/** `GET /api/task/{id}` and `POST /api/task/{id}/action/cancel`. */
import { errors } from '../server/errors.js';
import { empty, xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { MT } from '../xml/ns.js';
import { orgOf, taskXml } from './common.js';

/** Registers the task routes; a task of another org is VCD's 403. */
export function taskRoutes(r: Router, sim: Simulator): void {
  const find = (id: string, orgId: string) => {
    const t = sim.tasks.tasks.get(id);
    if (!t || t.orgId !== orgId) throw errors.forbidden();
    return t;
  };
  r.add('GET', '/api/task/{id}', (ctx) =>
    xml(200, MT.task, taskXml(sim, ctx.base, find(ctx.params.id ?? '', orgOf(ctx)))),
  );
  r.add('POST', '/api/task/{id}/action/cancel', (ctx) => {
    sim.tasks.cancel(find(ctx.params.id ?? '', orgOf(ctx)).id);
    return empty(204);
  });
}
