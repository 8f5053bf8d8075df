/**
 * The upgrade order as a property: whatever the workloads report, the agent is applied only once
 * the coordinator runs the target completely, and pruning waits for both; and a model rollout
 * driven by the plan always ends complete, the coordinator first.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { completeAt, planUpgrade, type Rollout, rolloutOf, type Target } from '../src/index.js';

const versions = fc.constantFrom('0.1.0', '0.2.0');
const protocols = fc.constantFrom('capstan' as const, 'fluo' as const);
const rollout: fc.Arbitrary<Rollout> = fc
  .record({
    version: versions,
    protocol: protocols,
    observed: fc.boolean(),
    desired: fc.nat(6),
    updated: fc.nat(6),
    available: fc.nat(6),
  })
  .map((r) => ({ ...r, complete: r.observed && r.updated === r.desired && r.available >= r.desired }));
const target: fc.Arbitrary<Target> = fc.record({
  version: versions,
  protocols: fc.record({ coordinator: protocols, agent: protocols }),
});

describe('planUpgrade', () => {
  it('applies the agent only after the coordinator is complete at the target; prunes only when both are', () => {
    fc.assert(
      fc.property(
        target,
        fc.option(rollout, { nil: undefined }),
        fc.option(rollout, { nil: undefined }),
        (t, c, a) => {
          const plan = planUpgrade(t, { coordinator: c, agent: a });
          const coordinatorDone = completeAt(c, t.version, t.protocols.coordinator);
          const agentDone = completeAt(a, t.version, t.protocols.agent);
          expect(plan.apply[0]).toBe('coordinator');
          expect(plan.apply.includes('agent')).toBe(coordinatorDone);
          expect(plan.prune).toBe(coordinatorDone && agentDone);
          expect(plan.phase === 'Complete').toBe(plan.prune);
        },
      ),
    );
  });

  it('a model rollout driven by the plan completes, and no agent pod changes before the coordinator is done', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('coordinator', 'agent', 'nothing'), { maxLength: 40 }),
        (ticks) => {
          const t: Target = { version: '0.2.0', protocols: { coordinator: 'capstan', agent: 'capstan' } };
          // What each controller has been told (the template) and how far its pods are.
          const world = {
            coordinator: { template: '0.1.0', pods: '0.1.0' },
            agent: { template: '0.1.0', pods: '0.1.0' },
          };
          const asRollout = (w: { template: string; pods: string }): Rollout => ({
            version: w.template,
            protocol: 'capstan',
            observed: true,
            desired: 2,
            updated: w.pods === w.template ? 2 : 0,
            available: 2,
            complete: w.pods === w.template,
          });
          const order: string[] = [];
          for (const tick of [...ticks, 'coordinator', 'agent', 'coordinator', 'agent']) {
            const plan = planUpgrade(t, {
              coordinator: asRollout(world.coordinator),
              agent: asRollout(world.agent),
            });
            for (const c of plan.apply) world[c].template = t.version;
            if (tick !== 'nothing' && world[tick as 'agent'].pods !== world[tick as 'agent'].template) {
              if (tick === 'agent') expect(world.coordinator.pods).toBe(t.version);
              world[tick as 'agent'].pods = world[tick as 'agent'].template;
              order.push(tick);
            }
          }
          expect(
            planUpgrade(t, { coordinator: asRollout(world.coordinator), agent: asRollout(world.agent) })
              .phase,
          ).toBe('Complete');
          expect(order).toEqual(['coordinator', 'agent']);
        },
      ),
    );
  });
});

describe('rolloutOf', () => {
  it('a Deployment is complete only when no old pod is left and the controller has seen the spec', () => {
    const d = (status: Record<string, number>, generation = 2) => ({
      kind: 'Deployment',
      metadata: { generation },
      spec: {
        replicas: 2,
        template: { metadata: { annotations: { 'operator.capstan.dev/version': '0.2.0' } } },
      },
      status,
    });
    expect(
      rolloutOf(d({ observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2 })).complete,
    ).toBe(true);
    expect(
      rolloutOf(d({ observedGeneration: 2, replicas: 3, updatedReplicas: 2, availableReplicas: 3 })).complete,
    ).toBe(false);
    expect(
      rolloutOf(d({ observedGeneration: 1, replicas: 2, updatedReplicas: 2, availableReplicas: 2 })).complete,
    ).toBe(false);
    expect(
      rolloutOf(d({ observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 1 })).complete,
    ).toBe(false);
  });
});
