/**
 * `GET /api/task/{id}` (XML, or VCD's JSON form of the legacy API when `Accept` asks for
 * `application/*+json`) and `POST /api/task/{id}/action/cancel`.
 */
import { errors } from '../server/errors.js';
import { type Ctx, empty, type Reply, xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import type { Task } from '../tasks/runner.js';
import { MT } from '../xml/ns.js';
import { path, urn } from '../xml/refs.js';
import { orgOf, taskXml } from './common.js';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The legacy API's JSON representation of a task (camelCase fields of the Task type). */
function taskJson(sim: Simulator, ctx: Ctx, t: Task): Reply {
  const org = sim.world.orgs.get(t.orgId);
  const body = {
    href: `${ctx.base}${path.task(t.id)}`,
    type: MT.task.replace('+xml', '+json'),
    id: urn('task', t.id),
    name: 'task',
    status: t.status,
    operation: t.operation,
    operationName: t.operationName,
    serviceNamespace: 'com.vmware.vcloud',
    startTime: iso(t.startTime),
    endTime: iso(t.endTime),
    expiryTime: iso(t.expiryTime),
    cancelRequested: t.cancelRequested,
    progress: t.progress,
    owner: { href: `${ctx.base}${t.owner.path}`, id: t.owner.urn, name: t.owner.name, type: t.owner.type },
    user: { name: t.userName },
    organization: { href: `${ctx.base}${path.org(t.orgId)}`, id: urn('org', t.orgId), name: org?.name ?? '' },
    error: t.error
      ? { majorErrorCode: t.error.status, minorErrorCode: t.error.minorErrorCode, message: t.error.message }
      : null,
    details: t.error?.message ?? '',
  };
  return { status: 200, contentType: 'application/vnd.vmware.vcloud.task+json', body: JSON.stringify(body) };
}

/** Registers the task routes; a task of another org is VCD's 403. */
export function taskRoutes(r: Router, sim: Simulator): void {
  const find = (id: string, orgId: string) => {
    const t = sim.tasks.tasks.get(id);
    if (!t || t.orgId !== orgId) throw errors.forbidden();
    return t;
  };
  r.add('GET', '/api/task/{id}', (ctx) => {
    const t = find(ctx.params.id ?? '', orgOf(ctx));
    return /\+json/i.test(ctx.req.headers.accept ?? '')
      ? taskJson(sim, ctx, t)
      : xml(200, MT.task, taskXml(sim, ctx.base, t));
  });
  r.add('POST', '/api/task/{id}/action/cancel', (ctx) => {
    sim.tasks.cancel(find(ctx.params.id ?? '', orgOf(ctx)).id);
    return empty(204);
  });
}
