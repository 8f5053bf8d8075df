/**
 * A logged-in session for one set of credentials on one site. It logs in once (username and
 * password through `/cloudapi/1.0.0/sessions`, or an API/refresh token through
 * `/oauth/tenant/{org}/token`), reuses the token for every call, and logs in again only when the
 * site answers 401 (the token expired or was revoked). Concurrent calls share one login.
 * Secrets stay in this object: never in errors, logs, status or events.
 */
import { errorFromBody, VcdError } from './errors.js';
import type { RawResponse, Site } from './site.js';

/** Credentials as read from the VCDCluster's Secret. */
export interface Credentials {
  org: string;
  username?: string;
  password?: string;
  /** An API token (used as an OAuth refresh token). Preferred over username and password. */
  refreshToken?: string;
}

/** What a call sends and expects: legacy XML or CloudAPI JSON. */
export interface CallOptions {
  kind: 'xml' | 'json';
  body?: string;
  /** Content type of the body (XML: `application/vnd.vmware.vcloud.<x>+xml`). */
  contentType?: string;
}

/** The `Accept` value of a call kind at the negotiated version. */
const accept = (kind: 'xml' | 'json', version: string) =>
  kind === 'xml' ? `application/*+xml;version=${version}` : `application/json;version=${version}`;

/** A session: log in once, send with the token, log in again on 401. */
export class Session {
  private token: string | undefined;
  private pending: Promise<string> | undefined;
  /** Logins done (for tests and the bench: one per credentials, plus one per expiry). */
  logins = 0;

  constructor(
    readonly site: Site,
    private readonly credentials: Credentials,
  ) {
    if (!credentials.refreshToken && !(credentials.username && credentials.password)) {
      throw new VcdError(0, 'NO_CREDENTIALS', 'the Secret needs refreshToken, or username and password');
    }
  }

  /** Sends one authenticated call; a 401 is answered by one fresh login and one retry. */
  async call(method: string, path: string, options: CallOptions): Promise<RawResponse> {
    const version = await this.site.version();
    const used = await this.login();
    let res = await this.send(method, path, options, version, used);
    if (res.status === 401) {
      this.expire(used);
      res = await this.send(method, path, options, version, await this.login());
    }
    return res;
  }

  private send(method: string, path: string, o: CallOptions, version: string, token: string) {
    const headers: Record<string, string> = {
      Accept: accept(o.kind, version),
      Authorization: `Bearer ${token}`,
    };
    if (o.body !== undefined) {
      headers['Content-Type'] =
        o.contentType ?? (o.kind === 'json' ? 'application/json' : 'application/*+xml');
    }
    return this.site.send(method, path, headers, o.body);
  }

  /** Forgets `used`, unless another call already replaced it. */
  private expire(used: string): void {
    if (this.token === used) this.token = undefined;
  }

  /** The current token, logging in when there is none (one login for concurrent callers). */
  private async login(): Promise<string> {
    if (this.token) return this.token;
    this.pending ??= this.doLogin()
      .then((token) => {
        this.token = token;
        return token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  private async doLogin(): Promise<string> {
    const version = await this.site.version();
    this.logins++;
    const { org, username, password, refreshToken } = this.credentials;
    if (refreshToken) {
      const path = `/oauth/tenant/${encodeURIComponent(org)}/token`;
      const body = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
      }).toString();
      const res = await this.site.send(
        'POST',
        path,
        { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
      );
      if (res.status !== 200) throw errorFromBody(res.status, res.body, 'POST /oauth/tenant/{org}/token');
      const token = (JSON.parse(res.body) as { access_token?: string }).access_token;
      if (!token)
        throw new VcdError(res.status, 'NO_TOKEN', 'the token endpoint answered without access_token');
      return token;
    }
    const path =
      org.toLowerCase() === 'system' ? '/cloudapi/1.0.0/sessions/provider' : '/cloudapi/1.0.0/sessions';
    const basic = Buffer.from(`${username}@${org}:${password}`).toString('base64');
    const res = await this.site.send('POST', path, {
      Accept: accept('json', version),
      Authorization: `Basic ${basic}`,
    });
    if (res.status !== 200 && res.status !== 201) throw errorFromBody(res.status, res.body, `POST ${path}`);
    const header = res.headers['x-vmware-vcloud-access-token'];
    const token = Array.isArray(header) ? header[0] : header;
    if (!token) throw new VcdError(res.status, 'NO_TOKEN', 'the session answer carried no access token');
    return token;
  }
}
