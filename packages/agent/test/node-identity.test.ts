/**
 * The start-up check's verdict on a token's user info (pure; the real SelfSubjectReview is in
 * admission-policy.test.ts): a claim naming the agent's node passes, any other claim fails, and no
 * claim passes only with --allow-unbound-token, with a warning.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeNodeIdentity, NODE_NAME_EXTRA, type ReviewedUser } from '../src/node-identity.js';

const name = fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,20}$/);
const otherExtra = fc.dictionary(
  fc.constantFrom('authentication.kubernetes.io/pod-name', 'authentication.kubernetes.io/credential-id', 'x'),
  fc.array(fc.string(), { maxLength: 2 }),
);
const withClaim = (extra: Record<string, string[]>, claim: string[] | undefined): ReviewedUser => ({
  username: 'system:serviceaccount:capstan-system:capstan-agent',
  extra: claim === undefined ? extra : { ...extra, [NODE_NAME_EXTRA]: claim },
});

describe('judgeNodeIdentity', () => {
  it('passes without a warning exactly when the claim is the agent’s node alone', () => {
    fc.assert(
      fc.property(name, otherExtra, fc.boolean(), (node, extra, allow) => {
        expect(judgeNodeIdentity(withClaim(extra, [node]), node, allow)).toEqual({ ok: true });
      }),
    );
  });

  it('fails for a claim naming another node, or several, whatever the flag', () => {
    fc.assert(
      fc.property(
        name,
        fc.array(name, { minLength: 1, maxLength: 3 }),
        otherExtra,
        fc.boolean(),
        (node, claim, extra, allow) => {
          fc.pre(claim.length > 1 || claim[0] !== node);
          const verdict = judgeNodeIdentity(withClaim(extra, claim), node, allow);
          expect(verdict.ok).toBe(false);
          if (!verdict.ok) expect(verdict.error).toContain(`started for node ${node}`);
        },
      ),
    );
  });

  it('without a claim: fails, or with the flag runs and warns', () => {
    fc.assert(
      fc.property(name, otherExtra, fc.constantFrom(undefined, [] as string[]), (node, extra, claim) => {
        const strict = judgeNodeIdentity(withClaim(extra, claim), node, false);
        expect(strict.ok).toBe(false);
        if (!strict.ok) expect(strict.error).toContain('carries no node claim');
        const lax = judgeNodeIdentity(withClaim(extra, claim), node, true);
        expect(lax.ok).toBe(true);
        if (lax.ok) expect(lax.warning).toContain('--allow-unbound-token');
      }),
    );
  });

  it('reads an empty review (no user info at all) as no claim', () => {
    expect(judgeNodeIdentity({}, 'n', false).ok).toBe(false);
  });
});
