/** The Task element (`application/vnd.vmware.vcloud.task+xml`). */
import { errorElement } from '../server/errors.js';
import { isTerminal } from '../tasks/machine.js';
import type { Task } from '../tasks/runner.js';
import { el, text } from './build.js';
import { MT, ROOT_NS } from './ns.js';
import { link, path, ref, urn } from './refs.js';

const XS = 'http://www.w3.org/2001/XMLSchema';

const iso = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : new Date(ms).toISOString();

/** A task; `root` adds the namespace declarations (a task served as its own document). */
export function taskElement(t: Task, base: string, orgName: string, orgId: string, root: boolean): string {
  return el(
    'Task',
    {
      ...(root ? ROOT_NS : {}),
      cancelRequested: String(t.cancelRequested),
      endTime: iso(t.endTime),
      expiryTime: iso(t.expiryTime),
      operation: t.operation,
      operationName: t.operationName,
      serviceNamespace: 'com.vmware.vcloud',
      startTime: iso(t.startTime),
      status: t.status,
      name: 'task',
      id: urn('task', t.id),
      href: `${base}${path.task(t.id)}`,
      type: MT.task,
    },
    isTerminal(t.status)
      ? undefined
      : link(base, 'task:cancel', undefined, `${path.task(t.id)}/action/cancel`),
    ref('Owner', base, t.owner.type, t.owner.path, t.owner.name, t.owner.urn),
    t.error ? errorElement(t.error, false) : undefined,
    el('User', {
      href: `${base}/api/admin/user/${t.userName}`,
      name: t.userName,
      type: 'application/vnd.vmware.admin.user+xml',
    }),
    ref('Organization', base, MT.org, path.org(orgId), orgName, urn('org', orgId)),
    text('Progress', t.progress),
    text('Details', t.error ? t.error.message : ''),
    t.result === undefined
      ? undefined
      : el('Result', undefined, text('ResultContent', t.result, { 'xsi:type': 'xs:string', 'xmlns:xs': XS })),
  );
}

/** A `<Tasks>` child listing unfinished tasks (as embedded in an entity). */
export function tasksInProgress(
  tasks: Task[],
  base: string,
  orgName: string,
  orgId: string,
): string | undefined {
  const open = tasks.filter((t) => !isTerminal(t.status));
  if (open.length === 0) return undefined;
  return el('Tasks', undefined, ...open.map((t) => taskElement(t, base, orgName, orgId, false)));
}
