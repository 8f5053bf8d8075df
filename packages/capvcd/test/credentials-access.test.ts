/**
 * Which credentials Secret a VCDCluster may use: its own namespace's always; another namespace's
 * only through a VCDClusterIdentity that names exactly that Secret and whose selector (present)
 * selects the VCDCluster's namespace labels.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VCDClusterIdentity } from '../src/api/types.js';
import { credentialsAccess } from '../src/credentials.js';

const names = fc.constantFrom('a', 'b', 'c');
const labels = fc.dictionary(fc.constantFrom('tenant', 'tier'), fc.constantFrom('x', 'y'));
const selector = fc.option(
  fc.record({ matchLabels: fc.dictionary(fc.constantFrom('tenant', 'tier'), fc.constantFrom('x', 'y')) }),
  { nil: undefined },
);
const identity = fc.record({ name: names, ns: names, secret: names, selector }).map(
  ({ name, ns, secret, selector: s }): VCDClusterIdentity => ({
    metadata: { name },
    spec: {
      secretRef: { namespace: ns, name: secret },
      ...(s === undefined ? {} : { allowedNamespaces: { selector: s } }),
    },
  }),
);

/** What an identity allows, said independently of the code: every matchLabels pair present. */
const selects = (i: VCDClusterIdentity, nsLabels: Record<string, string>) => {
  const s = i.spec.allowedNamespaces?.selector;
  return s !== undefined && Object.entries(s.matchLabels ?? {}).every(([k, v]) => nsLabels[k] === v);
};

describe('credentialsAccess', () => {
  it('allows exactly the own namespace, or a Secret an identity names and whose selector selects', () => {
    fc.assert(
      fc.property(
        names,
        labels,
        names,
        names,
        fc.array(identity, { maxLength: 4 }),
        (ns, l, sns, sn, ids) => {
          const access = credentialsAccess(ns, l, { namespace: sns, name: sn }, ids);
          const expected =
            sns === ns ||
            ids.some(
              (i) => i.spec.secretRef.namespace === sns && i.spec.secretRef.name === sn && selects(i, l),
            );
          expect(access.allowed).toBe(expected);
          if (!access.allowed) {
            expect(access.reason).toBe('CredentialsNotAllowed');
            expect(access.message).toContain(`${sns}/${sn}`);
          }
        },
      ),
    );
  });

  it('an identity without a selector allows nothing; an empty selector allows every namespace', () => {
    const secret = { namespace: 'vault', name: 's' };
    const bare: VCDClusterIdentity = { metadata: { name: 'i' }, spec: { secretRef: secret } };
    expect(credentialsAccess('t', {}, secret, [bare]).allowed).toBe(false);
    const open: VCDClusterIdentity = { ...bare, spec: { ...bare.spec, allowedNamespaces: { selector: {} } } };
    expect(credentialsAccess('t', {}, secret, [open])).toEqual({ allowed: true, identity: 'i' });
  });

  it('refuses through a selector with an unknown operator (the schema refuses it; it matches nothing)', () => {
    const secret = { namespace: 'vault', name: 's' };
    const bad: VCDClusterIdentity = {
      metadata: { name: 'i' },
      spec: {
        secretRef: secret,
        allowedNamespaces: { selector: { matchExpressions: [{ key: 'k', operator: 'Near' as 'In' }] } },
      },
    };
    expect(credentialsAccess('t', { k: 'v' }, secret, [bad]).allowed).toBe(false);
  });
});
