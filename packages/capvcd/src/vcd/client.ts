/**
 * Typed calls over a {@link Session}: XML and JSON bodies parsed, errors raised as
 * {@link VcdError}, and async answers turned into the {@link Task} they started (never awaited
 * here: the caller records the href and a later reconcile reads it with {@link VcdClient.task}).
 */
import { errorFromBody, VcdError } from './errors.js';
import type { Session } from './session.js';
import type { RawResponse } from './site.js';
import { childOf, parseXml, textOf, type XmlNode } from './xml.js';

/** A task's state as VCD reports it. */
export interface Task {
  href: string;
  status: 'queued' | 'preRunning' | 'running' | 'success' | 'error' | 'aborted';
  operationName?: string;
  /** The entity the task acts on. */
  ownerHref?: string;
  /** Set when `status` is `error` (or `aborted`). */
  error?: VcdError;
  /** What a finished task returns (`Result/ResultContent`: e.g. the floating IPs an IP Space reserved, as JSON). */
  result?: string;
}

/** Whether a task is still going. */
export const taskRunning = (task: Task): boolean =>
  task.status === 'queued' || task.status === 'preRunning' || task.status === 'running';

/** Reads a `<Task>` element. */
export function readTask(node: XmlNode): Task {
  const error = childOf(node, 'Error');
  const owner = childOf(node, 'Owner');
  const result = textOf(childOf(childOf(node, 'Result'), 'ResultContent'));
  return {
    href: String(node.href ?? ''),
    status: String(node.status ?? 'queued') as Task['status'],
    ...(node.operationName ? { operationName: String(node.operationName) } : {}),
    ...(owner?.href ? { ownerHref: String(owner.href) } : {}),
    ...(result ? { result } : {}),
    ...(error || node.status === 'aborted'
      ? {
          error: new VcdError(
            Number(error?.majorErrorCode ?? 500),
            String(error?.minorErrorCode ?? (node.status === 'aborted' ? 'TASK_ABORTED' : 'TASK_FAILED')),
            String(error?.message ?? textOf(childOf(node, 'Details')) ?? `task ${node.status}`),
            String(node.operationName ?? 'task'),
          ),
        }
      : {}),
  };
}

/** The calls the provider makes, on one session. */
export class VcdClient {
  constructor(readonly session: Session) {}

  /** The site-relative path of an href VCD gave us (hrefs are absolute URLs). */
  pathOf(href: string): string {
    if (href.startsWith('/')) return href;
    const url = new URL(href);
    const prefix = this.session.site.base.pathname.replace(/\/$/, '');
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    return path + url.search;
  }

  /** A legacy XML call; returns the parsed body (empty for 204). */
  async xml(method: string, hrefOrPath: string, body?: string, contentType?: string): Promise<XmlNode> {
    const res = await this.raw(method, hrefOrPath, { kind: 'xml', body, contentType });
    return res.body.trim() ? parseXml(res.body) : {};
  }

  /** A legacy XML GET, its body read by `parse` (e.g. one that leaves bulky sections unparsed). */
  async getXml(hrefOrPath: string, parse: (text: string) => XmlNode): Promise<XmlNode> {
    const res = await this.raw('GET', hrefOrPath, { kind: 'xml' });
    return res.body.trim() ? parse(res.body) : {};
  }

  /** A CloudAPI JSON call; returns the parsed body and the `Location` header (a task, for 202). */
  async json<T>(method: string, path: string, body?: unknown): Promise<{ body: T; location?: string }> {
    const res = await this.raw(method, path, {
      kind: 'json',
      ...(body !== undefined ? { body: JSON.stringify(body), contentType: 'application/json' } : {}),
    });
    const location = res.headers.location;
    return {
      body: (res.body.trim() ? JSON.parse(res.body) : undefined) as T,
      ...(typeof location === 'string' ? { location } : {}),
    };
  }

  /** An XML write that answers with a Task (202), or with an entity carrying its Tasks (201). */
  async startTask(method: string, hrefOrPath: string, body?: string, contentType?: string): Promise<Task> {
    const doc = await this.xml(method, hrefOrPath, body, contentType);
    const rootName = Object.keys(doc).find((k) => !k.startsWith('?'));
    const root = rootName ? (childOf(doc, rootName) as XmlNode | undefined) : undefined;
    if (doc.Task) return readTask(childOf(doc, 'Task') as XmlNode);
    const embedded = childOf(childOf(root, 'Tasks'), 'Task');
    if (embedded) {
      const task = readTask(embedded);
      // composeVApp answers with the new vApp: its href is the task's owner.
      return task.ownerHref || !root?.href ? task : { ...task, ownerHref: String(root.href) };
    }
    throw new VcdError(0, 'NO_TASK', `${method} ${hrefOrPath} answered without a task`);
  }

  /**
   * A CloudAPI write: 202 with `Location: …/api/task/{id}` (a task to record), or a synchronous
   * 200/201/204 (a task that already succeeded, with no href).
   */
  async startJsonTask(method: string, path: string, body?: unknown): Promise<Task> {
    const { location } = await this.json(method, path, body);
    if (location?.includes('/task/')) return { href: location, status: 'queued' };
    return { href: '', status: 'success' };
  }

  /** Reads a task (one GET; never waits). */
  async task(href: string): Promise<Task> {
    const doc = await this.xml('GET', href);
    return readTask(childOf(doc, 'Task') ?? {});
  }

  private async raw(
    method: string,
    hrefOrPath: string,
    options: Parameters<Session['call']>[2],
  ): Promise<RawResponse> {
    const path = this.pathOf(hrefOrPath);
    const res = await this.session.call(method, path, options);
    if (res.status >= 400) throw errorFromBody(res.status, res.body, `${method} ${path.split('?')[0]}`);
    return res;
  }
}
