/** Routes: a method, a path pattern with `{param}` segments, and what the route needs. */
import type { Ctx, Reply } from './http.js';

/** How a route is reached. */
export interface RouteOptions {
  /** Requires a valid session (default true). */
  auth?: boolean;
  /** Requires a supported API version in `Accept` (default true). */
  versioned?: boolean;
}

export type Handler = (ctx: Ctx) => Promise<Reply> | Reply;

/** A registered route. `pattern` is also the key of the request log's per-route counts. */
export interface Route {
  method: string;
  pattern: string;
  handler: Handler;
  auth: boolean;
  versioned: boolean;
  regex: RegExp;
  keys: string[];
}

/** The outcome of matching a path: a route and its params, or a list of methods the path allows. */
export type Match = { route: Route; params: Record<string, string> } | { allowed: string[] };

/** A list of routes matched in registration order; a trailing slash on the request is ignored. */
export class Router {
  readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler, opts: RouteOptions = {}): void {
    const keys: string[] = [];
    const source = pattern
      .split('/')
      .map((seg) =>
        seg.replace(/\{(\w+)\}|[^{}]+/g, (m, key: string | undefined) => {
          if (key) {
            keys.push(key);
            return '([^/]+)';
          }
          return m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        }),
      )
      .join('/');
    this.routes.push({
      method,
      pattern,
      handler,
      auth: opts.auth ?? true,
      versioned: opts.versioned ?? true,
      regex: new RegExp(`^${source}/?$`),
      keys,
    });
  }

  match(method: string, path: string): Match | undefined {
    const allowed: string[] = [];
    for (const route of this.routes) {
      const m = route.regex.exec(path);
      if (!m) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.keys.forEach((k, i) => {
        params[k] = decodeURIComponent(m[i + 1] ?? '');
      });
      return { route, params };
    }
    return allowed.length > 0 ? { allowed } : undefined;
  }
}
