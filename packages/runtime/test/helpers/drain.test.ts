import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/client/index.js';
import { drainPlan, MIRROR_POD_ANNOTATION, podDrainFacts } from '../../src/helpers/index.js';

const facts = fc.record({
  namespace: fc.constantFrom('a', 'b'),
  name: fc.string({ minLength: 1, maxLength: 5 }),
  uid: fc.uuid(),
  daemonSet: fc.boolean(),
  mirror: fc.boolean(),
  terminating: fc.boolean(),
});

describe('drainPlan', () => {
  it('puts every pod in one bucket, never evicts DaemonSet or mirror pods nor re-evicts terminating ones', () => {
    fc.assert(
      fc.property(fc.array(facts, { maxLength: 30 }), (pods) => {
        const plan = drainPlan(pods);
        expect(plan.evict.length + plan.terminating.length + plan.skipped.length).toBe(pods.length);
        for (const p of plan.evict) expect(p.daemonSet || p.mirror || p.terminating).toBe(false);
        for (const p of plan.terminating) expect(p.terminating && !p.daemonSet && !p.mirror).toBe(true);
        for (const p of plan.skipped) expect(p.daemonSet || p.mirror).toBe(true);
      }),
    );
  });
});

describe('podDrainFacts', () => {
  it('reads DaemonSet control, the mirror annotation and deletion from a Pod', () => {
    const pod = (metadata: Pod['metadata']): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata });
    expect(
      podDrainFacts(
        pod({
          namespace: 'ns',
          name: 'ds-1',
          uid: 'u1',
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'x', controller: true },
          ],
        }),
      ),
    ).toEqual({
      namespace: 'ns',
      name: 'ds-1',
      uid: 'u1',
      daemonSet: true,
      mirror: false,
      terminating: false,
    });
    // Owned but not controlled by a DaemonSet: evicted like any pod.
    const owned = pod({
      name: 'p',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'x' }],
    });
    expect(podDrainFacts(owned).daemonSet).toBe(false);
    expect(podDrainFacts(pod({ name: 'm', annotations: { [MIRROR_POD_ANNOTATION]: 'h' } })).mirror).toBe(
      true,
    );
    expect(podDrainFacts(pod({ name: 't', deletionTimestamp: '2026-01-01T00:00:00Z' })).terminating).toBe(
      true,
    );
  });
});
