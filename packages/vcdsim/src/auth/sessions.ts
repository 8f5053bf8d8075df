/**
 * Logins, sessions and token refresh. A session lives until its token expires (the configured
 * lifetime, on the simulator's clock) or until it is deleted; every request is checked against both.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '@capstan/runtime';
import type { Org, User, World } from '../model/world.js';
import { errors } from '../server/errors.js';
import { signJwt, verifyJwt } from './jwt.js';

/** An authenticated session. */
export interface Session {
  id: string;
  user: User;
  org: Org;
  createdAt: number;
  expiresAt: number;
}

/** A new session and its bearer token. */
export interface Login {
  session: Session;
  token: string;
}

/** Issues and checks tokens. */
export class Auth {
  readonly #secret = randomBytes(32);
  readonly #sessions = new Map<string, Session>();

  constructor(
    private readonly world: World,
    private readonly clock: Clock,
    /** Token lifetime in milliseconds. */
    public tokenLifetimeMs: number,
  ) {}

  /** Logs in with an `Authorization: Basic base64(user@org:password)` header value. */
  loginBasic(header: string | undefined): Login {
    const m = /^basic\s+(\S+)$/i.exec(header ?? '');
    if (!m) throw errors.unauthorized('Basic authentication with user@org:password is required.');
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const at = decoded.lastIndexOf('@', colon < 0 ? undefined : colon);
    if (colon < 0 || at < 0) throw errors.unauthorized('Credentials must be user@org:password.');
    const userName = decoded.slice(0, at);
    const orgName = decoded.slice(at + 1, colon);
    const password = decoded.slice(colon + 1);
    const org = this.world.orgByName(orgName);
    const user = org && this.world.user(org.id, userName);
    if (!org || !user || user.password !== password) throw errors.unauthorized('Invalid credentials.');
    return this.#open(user, org);
  }

  /** Exchanges an API (refresh) token of the org's user for a new session. */
  refresh(orgName: string, refreshToken: string): Login {
    const org = this.world.orgByName(orgName);
    const user =
      org && this.world.users.find((u) => u.orgId === org.id && u.apiTokens.includes(refreshToken));
    if (!org || !user)
      throw errors.badRequest('invalid_grant: the refresh token is not valid for this organization');
    return this.#open(user, org);
  }

  /** The session of a bearer token; 401 when the token is bad, expired or its session was deleted. */
  verify(token: string | undefined): Session {
    if (!token) throw errors.unauthorized();
    const claims = verifyJwt(token, this.#secret);
    const session = claims && this.#sessions.get(claims.sid);
    if (!session) throw errors.unauthorized();
    if (this.clock.now() >= session.expiresAt) {
      this.#sessions.delete(session.id);
      throw errors.unauthorized('The access token has expired.');
    }
    return session;
  }

  /** Ends a session (`DELETE /cloudapi/1.0.0/sessions/current`). */
  logout(session: Session): void {
    this.#sessions.delete(session.id);
  }

  /** Expires every live session at once (a fault: clients must log in again). */
  expireAll(): void {
    for (const s of this.#sessions.values()) s.expiresAt = this.clock.now();
  }

  /** Number of live sessions. */
  get count(): number {
    return this.#sessions.size;
  }

  #open(user: User, org: Org): Login {
    const now = this.clock.now();
    const session: Session = {
      id: randomUUID(),
      user,
      org,
      createdAt: now,
      expiresAt: now + this.tokenLifetimeMs,
    };
    this.#sessions.set(session.id, session);
    const token = signJwt(
      {
        sid: session.id,
        sub: user.name,
        org: org.name,
        iat: Math.floor(now / 1000),
        exp: Math.floor(session.expiresAt / 1000),
      },
      this.#secret,
    );
    return { session, token };
  }
}
