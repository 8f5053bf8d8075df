/**
 * Versions and authentication: `GET /api/versions`, CloudAPI sessions (Basic `user@org:password`
 * → JWT in `X-VMWARE-VCLOUD-ACCESS-TOKEN`), `GET|DELETE /cloudapi/1.0.0/sessions/current`, the
 * legacy `POST /api/sessions`, and API-token refresh at `POST /oauth/tenant/{org}/token`.
 */
import type { Login } from '../auth/sessions.js';
import { errors } from '../server/errors.js';
import { type Ctx, empty, json, mediaTypeOf, xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import { SUPPORTED_VERSIONS } from '../server/versions.js';
import type { Simulator } from '../simulator.js';
import { doc, el, text } from '../xml/build.js';
import { MT, NS, ROOT_NS } from '../xml/ns.js';
import { link, path, urn } from '../xml/refs.js';

function sessionJson(ctx: Ctx, login: Pick<Login, 'session'>) {
  const s = login.session;
  return {
    id: urn('session', s.id),
    site: { name: 'vcdsim', id: urn('site', '00000000-0000-0000-0000-000000000001') },
    user: { name: s.user.name, id: urn('user', s.user.id) },
    org: { name: s.org.name, id: urn('org', s.org.id) },
    operatingOrg: { name: s.org.name, id: urn('org', s.org.id) },
    location: urn('location', '00000000-0000-0000-0000-000000000001'),
    roles: ['Organization Administrator'],
    roleRefs: [
      { name: 'Organization Administrator', id: urn('role', '00000000-0000-0000-0000-000000000002') },
    ],
    sessionIdleTimeoutMinutes: 30,
    links: [
      {
        rel: 'remove',
        href: `${ctx.base}/cloudapi/1.0.0/sessions/${urn('session', s.id)}`,
        method: 'DELETE',
      },
    ],
  };
}

/** The legacy `Session` element of the caller's session. */
function sessionXml(ctx: Ctx): string {
  const s = ctx.session!;
  return doc(
    el(
      'Session',
      {
        ...ROOT_NS,
        user: s.user.name,
        org: s.org.name,
        userId: urn('user', s.user.id),
        href: `${ctx.base}/api/session/`,
        type: MT.session,
      },
      link(ctx.base, 'down', MT.orgList, '/api/org/'),
      link(ctx.base, 'remove', undefined, '/api/session'),
      link(ctx.base, 'down', MT.org, path.org(s.org.id), s.org.name),
    ),
  );
}

function tokenHeaders(token: string): Record<string, string> {
  return {
    'X-VMWARE-VCLOUD-ACCESS-TOKEN': token,
    'X-VMWARE-VCLOUD-TOKEN-TYPE': 'Bearer',
    'x-vcloud-authorization': token,
  };
}

function versionsXml(ctx: Ctx): string {
  return doc(
    el(
      'SupportedVersions',
      { xmlns: NS.versions, 'xmlns:ns2': NS.vcloud },
      ...SUPPORTED_VERSIONS.map((v) =>
        el(
          'VersionInfo',
          { deprecated: 'false' },
          text('Version', v),
          text('LoginUrl', `${ctx.base}/api/sessions`),
        ),
      ),
    ),
  );
}

async function oauthForm(ctx: Ctx): Promise<URLSearchParams> {
  if (mediaTypeOf(ctx.req.headers['content-type']) !== 'application/x-www-form-urlencoded')
    throw errors.unsupportedMediaType(
      mediaTypeOf(ctx.req.headers['content-type']),
      'application/x-www-form-urlencoded',
    );
  return new URLSearchParams((await ctx.body()).toString('utf8'));
}

/** Registers the version and session routes. */
export function sessionRoutes(r: Router, sim: Simulator): void {
  r.add('GET', '/api/versions', (ctx) => xml(200, 'application/xml', versionsXml(ctx)), {
    auth: false,
    versioned: false,
  });
  cloudapiSessionRoutes(r, sim);
  legacySessionRoutes(r, sim);
  oauthTokenRoutes(r, sim);
}

/** CloudAPI sessions: JSON bodies, the token in response headers. */
function cloudapiSessionRoutes(r: Router, sim: Simulator): void {
  r.add(
    'POST',
    '/cloudapi/1.0.0/sessions',
    (ctx) => {
      const login = sim.auth.loginBasic(ctx.req.headers.authorization);
      ctx.session = login.session;
      return json(200, sessionJson(ctx, login), tokenHeaders(login.token));
    },
    { auth: false },
  );
  // Tenants cannot open provider sessions; VCD answers 401 as for bad credentials.
  r.add(
    'POST',
    '/cloudapi/1.0.0/sessions/provider',
    () => {
      throw errors.unauthorized('Only system administrators may log in to the provider.');
    },
    { auth: false },
  );

  r.add('GET', '/cloudapi/1.0.0/sessions/current', (ctx) =>
    json(200, sessionJson(ctx, { session: ctx.session! })),
  );
  r.add('DELETE', '/cloudapi/1.0.0/sessions/current', (ctx) => {
    sim.auth.logout(ctx.session!);
    return empty(204);
  });
  // By id, as the session's `remove` link names it: only the caller's own session is visible.
  const ownSession = (ctx: Ctx) => {
    if (ctx.params.id !== urn('session', ctx.session!.id)) throw errors.forbidden();
    return ctx.session!;
  };
  r.add('GET', '/cloudapi/1.0.0/sessions/{id}', (ctx) =>
    json(200, sessionJson(ctx, { session: ownSession(ctx) })),
  );
  r.add('DELETE', '/cloudapi/1.0.0/sessions/{id}', (ctx) => {
    sim.auth.logout(ownSession(ctx));
    return empty(204);
  });
}

/** The legacy XML `/api/sessions`, still the SDK's login on older API versions. */
function legacySessionRoutes(r: Router, sim: Simulator): void {
  r.add(
    'POST',
    '/api/sessions',
    (ctx) => {
      const login = sim.auth.loginBasic(ctx.req.headers.authorization);
      ctx.session = login.session;
      return xml(200, MT.session, sessionXml(ctx), tokenHeaders(login.token));
    },
    { auth: false },
  );
  r.add('GET', '/api/session', (ctx) => xml(200, MT.session, sessionXml(ctx)));
  r.add('DELETE', '/api/session', (ctx) => {
    sim.auth.logout(ctx.session!);
    return empty(204);
  });
}

/** API-token refresh: a tenant's refresh token buys a session; the provider's endpoint refuses. */
function oauthTokenRoutes(r: Router, sim: Simulator): void {
  r.add(
    'POST',
    '/oauth/tenant/{org}/token',
    async (ctx) => {
      const form = await oauthForm(ctx);
      if (form.get('grant_type') !== 'refresh_token')
        throw errors.badRequest('grant_type must be refresh_token');
      const login = sim.auth.refresh(ctx.params.org ?? '', form.get('refresh_token') ?? '');
      ctx.session = login.session;
      return json(200, {
        access_token: login.token,
        token_type: 'Bearer',
        expires_in: Math.floor((login.session.expiresAt - login.session.createdAt) / 1000),
        refresh_token: null,
      });
    },
    { auth: false, versioned: false },
  );
  r.add(
    'POST',
    '/oauth/provider/token',
    () => {
      throw errors.badRequest('invalid_grant: the refresh token is not valid for the provider');
    },
    { auth: false, versioned: false },
  );
}
