/**
 * The pure parts of secure metrics: the expiring cache and the access decision over fake reviews
 * (the real reviews are tested against the apiserver in secure-metrics.envtest.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccessReviews, ReviewedUser } from '../../../src/manager/secure-metrics/access-reviews.js';
import { bearerToken, MetricsAccess } from '../../../src/manager/secure-metrics/metrics-access.js';
import { TtlCache } from '../../../src/manager/secure-metrics/ttl-cache.js';
import { ManualClock } from '../../../src/testing/index.js';

describe('TtlCache', () => {
  it('answers a key exactly while its last write is younger than its ttl, and stays bounded', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('set' as const),
        key: fc.integer({ min: 0, max: 5 }),
        ttl: fc.integer({ min: -5, max: 50 }),
      }),
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 30 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.integer({ min: 1, max: 4 }), (ops, max) => {
        const clock = new ManualClock(0);
        const cache = new TtlCache<number>(clock, max);
        // The model: each key's last write, in write order, keeping only the newest `max`.
        let model: Array<{ key: string; value: number; expiresAt: number }> = [];
        ops.forEach((o, i) => {
          if (o.kind === 'tick') clock.advance(o.ms);
          else if (o.kind === 'set') {
            const key = String(o.key);
            cache.set(key, i, o.ttl);
            model = model.filter((e) => e.key !== key);
            if (o.ttl > 0) model.push({ key, value: i, expiresAt: clock.now() + o.ttl });
            model = model.slice(-max);
          } else {
            const entry = model.find((e) => e.key === String(o.key));
            const expected = entry && clock.now() < entry.expiresAt ? entry.value : undefined;
            expect(cache.get(String(o.key))).toBe(expected);
          }
          expect(cache.size).toBeLessThanOrEqual(max);
        });
      }),
    );
  });

  it('refuses a bound below one', () => {
    expect(() => new TtlCache(new ManualClock(0), 0)).toThrow(/at least 1/);
  });
});

describe('bearerToken', () => {
  it('reads the token of a Bearer header of any case, and nothing else', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9._-]{1,40}$/),
        fc.constantFrom('Bearer', 'bearer', 'BEARER'),
        (t, scheme) => {
          expect(bearerToken(`${scheme} ${t}`)).toBe(t);
          expect(bearerToken(`Basic ${t}`)).toBeUndefined();
          expect(bearerToken(t)).toBeUndefined();
        },
      ),
    );
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('Bearer ')).toBeUndefined();
  });
});

/** Reviews that know tokens `t:<user>` and let users in `allowed` get anything; counting calls. */
function fakeReviews(allowed: Set<string>, fail: { authn?: boolean; authz?: boolean } = {}) {
  const calls = { authenticate: 0, authorize: 0 };
  const reviews: AccessReviews = {
    async authenticate(token) {
      calls.authenticate++;
      if (fail.authn) throw new Error('apiserver unreachable');
      return token.startsWith('t:') ? ({ username: token.slice(2) } satisfies ReviewedUser) : undefined;
    },
    async authorize(user) {
      calls.authorize++;
      if (fail.authz) throw new Error('apiserver unreachable');
      return { allowed: allowed.has(user.username), reason: 'by the fake' };
    },
  };
  return { reviews, calls };
}

const metrics = { path: '/metrics', verb: 'get' };

describe('MetricsAccess', () => {
  it('decides 401, 403 and 200 and reuses answers until their ttl passes', async () => {
    const clock = new ManualClock(0);
    const { reviews, calls } = fakeReviews(new Set(['reader']));
    const access = new MetricsAccess(reviews, { clock });
    expect((await access.decide(undefined, metrics)).status).toBe(401);
    expect((await access.decide('Bearer nobody', metrics)).status).toBe(401);
    expect(await access.decide('Bearer t:other', metrics)).toMatchObject({
      status: 403,
      message: expect.stringContaining('user other may not get /metrics: by the fake'),
    });
    expect(await access.decide('Bearer t:reader', metrics)).toEqual({ status: 200, user: 'reader' });
    expect(calls).toEqual({ authenticate: 3, authorize: 2 });

    // Within every ttl: no review at all.
    for (let i = 0; i < 5; i++) await access.decide('Bearer t:reader', metrics);
    await access.decide('Bearer nobody', metrics);
    await access.decide('Bearer t:other', metrics);
    expect(calls).toEqual({ authenticate: 3, authorize: 2 });

    // After 30 s the denial and the rejected token are asked again; the allowance is not.
    clock.advance(30_000);
    await access.decide('Bearer t:other', metrics);
    await access.decide('Bearer nobody', metrics);
    expect(calls).toEqual({ authenticate: 4, authorize: 3 });
    // After a minute the token is reviewed again; the allowance (5 min) still holds.
    clock.advance(31_000);
    await access.decide('Bearer t:reader', metrics);
    expect(calls).toEqual({ authenticate: 5, authorize: 3 });
    clock.advance(240_000);
    await access.decide('Bearer t:reader', metrics);
    expect(calls).toEqual({ authenticate: 6, authorize: 4 });
  });

  it('answers 401 when the token review fails and 500 when the access review does, caching neither', async () => {
    const down = fakeReviews(new Set(['reader']), { authn: true });
    const a = new MetricsAccess(down.reviews, { clock: new ManualClock(0) });
    expect(await a.decide('Bearer t:reader', metrics)).toMatchObject({
      status: 401,
      message: /Authentication failed/,
    });
    await a.decide('Bearer t:reader', metrics);
    expect(down.calls.authenticate).toBe(2);

    const broken = fakeReviews(new Set(['reader']), { authz: true });
    const b = new MetricsAccess(broken.reviews, { clock: new ManualClock(0) });
    expect(await b.decide('Bearer t:reader', metrics)).toMatchObject({ status: 500 });
    await b.decide('Bearer t:reader', metrics);
    expect(broken.calls.authorize).toBe(2);
  });
});
