/**
 * The provider's VCD connections: one {@link Site} per URL and TLS setting, one {@link Session}
 * (with its client and lookup cache) per credentials on it. Reconciles ask here instead of logging
 * in; a changed Secret (a new password) is a new key, so it gets a fresh session.
 */
import { createHash } from 'node:crypto';
import { VcdClient } from './client.js';
import { Directory } from './directory.js';
import { type Credentials, Session } from './session.js';
import { type CallInfo, Site, type SiteOptions } from './site.js';

/** A session with its typed client and its lookups. */
export interface Connection {
  /** The site (its last TLS handshake). */
  site: Site;
  session: Session;
  vcd: VcdClient;
  directory: Directory;
}

const digest = (...parts: Array<string | undefined>) =>
  createHash('sha256')
    .update(parts.map((p) => p ?? '').join('\u0000'))
    .digest('hex');

/** Sites and sessions, shared by every controller of the provider. */
export class Connections {
  private readonly sites = new Map<string, Site>();
  private readonly sessions = new Map<string, Connection>();

  constructor(
    /** Per-site settings; `caPem` serves sites whose own options name no CA bundle. */
    private readonly defaults: Pick<
      SiteOptions,
      'qps' | 'burst' | 'concurrency' | 'timeoutMs' | 'caPem' | 'transport'
    > = {},
    private readonly onCall: (info: CallInfo) => void = () => {},
  ) {}

  /** The connection for these credentials on this site (made on first use). */
  connect(wanted: SiteOptions, credentials: Credentials): Connection {
    const site = { ...this.defaults, ...wanted };
    const siteKey = digest(site.url.replace(/\/+$/, ''), site.caPem, String(site.insecure === true));
    let s = this.sites.get(siteKey);
    if (!s) {
      s = new Site(site, this.onCall);
      this.sites.set(siteKey, s);
    }
    const key = digest(
      siteKey,
      credentials.org,
      credentials.username,
      credentials.password,
      credentials.refreshToken,
    );
    let connection = this.sessions.get(key);
    if (!connection) {
      const session = new Session(s, credentials);
      const vcd = new VcdClient(session);
      connection = { site: s, session, vcd, directory: new Directory(vcd) };
      this.sessions.set(key, connection);
    }
    return connection;
  }

  /** Logins done over all sessions (one per credentials, plus one per token expiry). */
  get logins(): number {
    let n = 0;
    for (const c of this.sessions.values()) n += c.session.logins;
    return n;
  }

  /** Closes every site's idle connections. */
  close(): void {
    for (const site of this.sites.values()) site.close();
  }
}
