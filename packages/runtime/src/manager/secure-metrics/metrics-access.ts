/**
 * Who may read `/metrics` when it is served securely: the request's bearer token is reviewed by
 * the API server (TokenReview), then its user's right to `get /metrics` (SubjectAccessReview).
 * Answers are cached briefly, with controller-runtime's times, so that a scrape every few seconds
 * does not cost two API calls each.
 */
import { createHash } from 'node:crypto';
import { type Clock, realClock } from '../../clock.js';
import type { AccessReviews, NonResourceAccess, ReviewedUser } from './access-reviews.js';
import { TtlCache } from './ttl-cache.js';

/** How long review answers are reused. */
export interface MetricsAccessTtls {
  /** A token the server authenticated. Default 1 min (controller-runtime's `CacheTTL`). */
  authenticatedMs?: number;
  /** A token the server rejected. Default 10 s. */
  rejectedMs?: number;
  /** An allowed request. Default 5 min (controller-runtime's `AllowCacheTTL`). */
  allowedMs?: number;
  /** A denied request. Default 30 s (controller-runtime's `DenyCacheTTL`). */
  deniedMs?: number;
}

/** The answer to a request: serve it (200), or refuse it with a status and a message. */
export type AccessDecision = { status: 200; user: string } | { status: 401 | 403 | 500; message: string };

/** The bearer token of an `Authorization` header, if it carries one. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

/** Decides requests through {@link AccessReviews}, with cached answers. */
export class MetricsAccess {
  private readonly tokens: TtlCache<ReviewedUser | null>;
  private readonly verdicts: TtlCache<{ allowed: boolean; reason?: string }>;
  private readonly ttls: Required<MetricsAccessTtls>;

  constructor(
    private readonly reviews: AccessReviews,
    options: { ttls?: MetricsAccessTtls; clock?: Clock; maxEntries?: number } = {},
  ) {
    const clock = options.clock ?? realClock;
    this.tokens = new TtlCache(clock, options.maxEntries);
    this.verdicts = new TtlCache(clock, options.maxEntries);
    this.ttls = {
      authenticatedMs: 60_000,
      rejectedMs: 10_000,
      allowedMs: 300_000,
      deniedMs: 30_000,
      ...options.ttls,
    };
  }

  /** Decides a request with this `Authorization` header for `access`. */
  async decide(authorization: string | undefined, access: NonResourceAccess): Promise<AccessDecision> {
    const token = bearerToken(authorization);
    if (token === undefined) return { status: 401, message: 'Unauthorized: a bearer token is required' };
    let user: ReviewedUser | undefined;
    try {
      user = await this.authenticate(token);
    } catch (err) {
      return { status: 401, message: `Authentication failed: ${(err as Error).message}` };
    }
    if (!user) return { status: 401, message: 'Unauthorized' };
    let verdict: { allowed: boolean; reason?: string };
    try {
      verdict = await this.authorize(user, access);
    } catch (err) {
      return {
        status: 500,
        message: `Authorization for user ${user.username} failed: ${(err as Error).message}`,
      };
    }
    if (!verdict.allowed) {
      const why = verdict.reason ? `: ${verdict.reason}` : '';
      return {
        status: 403,
        message: `Forbidden: user ${user.username} may not ${access.verb} ${access.path}${why}`,
      };
    }
    return { status: 200, user: user.username };
  }

  private async authenticate(token: string): Promise<ReviewedUser | undefined> {
    // Tokens are keyed by their hash: the cache never holds a credential.
    const key = createHash('sha256').update(token).digest('base64');
    const cached = this.tokens.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const user = await this.reviews.authenticate(token);
    this.tokens.set(key, user ?? null, user ? this.ttls.authenticatedMs : this.ttls.rejectedMs);
    return user;
  }

  private async authorize(
    user: ReviewedUser,
    access: NonResourceAccess,
  ): Promise<{ allowed: boolean; reason?: string }> {
    const key = JSON.stringify([user.username, user.uid, user.groups, user.extra, access.verb, access.path]);
    const cached = this.verdicts.get(key);
    if (cached !== undefined) return cached;
    const verdict = await this.reviews.authorize(user, access);
    this.verdicts.set(key, verdict, verdict.allowed ? this.ttls.allowedMs : this.ttls.deniedMs);
    return verdict;
  }
}
