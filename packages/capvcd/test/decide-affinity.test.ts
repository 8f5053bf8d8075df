/**
 * The anti-affinity decision, against a model of VCD's rules: every rule written holds at least
 * two distinct VMs of one group and VDC, none of a machine leaving; a rule not ours is never
 * touched; applying the steps converges to exactly the desired rules, and a converged world asks
 * for no write.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AffinityMachine,
  type AntiAffinitySpec,
  affinityRuleName,
  decideAffinity,
  desiredAffinityRules,
  groupRuleNames,
  type SeenRule,
} from '../src/decide/affinity.js';

const names = { namespace: 'ns', cluster: 'c1' };
const mode = fc.constantFrom<'Required' | 'Preferred' | undefined>('Required', 'Preferred', undefined);
const spec: fc.Arbitrary<AntiAffinitySpec> = fc
  .record({ controlPlane: mode, machineDeployments: mode })
  .map((s) => ({
    ...(s.controlPlane ? { controlPlane: s.controlPlane } : {}),
    ...(s.machineDeployments ? { machineDeployments: s.machineDeployments } : {}),
  }));
const machine: fc.Arbitrary<AffinityMachine> = fc
  .record({
    group: fc.constantFrom('cp', 'md-a', 'md-b', 'none'),
    ovdc: fc.constantFrom('vdc-a', 'vdc-b'),
    vm: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
    leaving: fc.boolean(),
  })
  .map((m) => ({
    ...(m.group === 'cp'
      ? { group: { controlPlane: true as const } }
      : m.group === 'none'
        ? {}
        : { group: { machineDeployment: m.group.slice(3) } }),
    ovdc: m.ovdc,
    ...(m.vm !== undefined ? { vm: `urn:vcloud:vm:${m.vm}` } : {}),
    leaving: m.leaving,
  }));
/** Machines with distinct VMs (a VM is one machine's), and each VM in the VDC the machine says. */
const machines = fc
  .array(machine, { maxLength: 12 })
  .map((ms) => ms.filter((m, i) => !m.vm || ms.findIndex((o) => o.vm === m.vm) === i));

/** Rules a VCD may already hold: ours (by name), a foreign one, duplicates, stale members. */
const seenRules = (ms: AffinityMachine[]): fc.Arbitrary<SeenRule[]> =>
  fc
    .array(
      fc.record({
        name: fc.constantFrom(
          affinityRuleName('ns', 'c1', { controlPlane: true }),
          affinityRuleName('ns', 'c1', { machineDeployment: 'a' }),
          affinityRuleName('ns', 'c1', { machineDeployment: 'gone' }),
          'someone-elses-rule',
        ),
        ovdc: fc.constantFrom('vdc-a', 'vdc-b'),
        enabled: fc.boolean(),
        mandatory: fc.boolean(),
        polarity: fc.constantFrom('Anti-Affinity', 'Affinity'),
        members: fc.subarray(ms.flatMap((m) => (m.vm ? [m.vm] : []))),
      }),
      { maxLength: 5 },
    )
    .map((rs) => rs.map((r, i) => ({ ...r, id: `rule-${i}`, href: `/api/vmAffinityRule/rule-${i}` })));

const world = machines.chain((ms) =>
  fc.record({ spec, machines: fc.constant(ms), seen: seenRules(ms), deleting: fc.boolean() }),
);

/** Ours: recorded (every seen rule of our names, as a status would hold them) or of our names. */
const oursFor = (ms: AffinityMachine[]) => {
  const groups = groupRuleNames(names, ms);
  return (r: SeenRule) => groups.has(r.name) || r.name.includes('-md-gone');
};

describe('desiredAffinityRules', () => {
  it('makes rules of two or more distinct VMs of one opted-in group and VDC, none leaving', () => {
    fc.assert(
      fc.property(world, ({ spec: s, machines: ms, deleting }) => {
        const rules = desiredAffinityRules(s, names, ms, deleting);
        if (deleting) expect(rules).toEqual([]);
        for (const r of rules) {
          expect(new Set(r.members).size).toBe(r.members.length);
          expect(r.members.length).toBeGreaterThanOrEqual(2);
          for (const vm of r.members) {
            const m = ms.find((x) => x.vm === vm) as AffinityMachine;
            expect(m.leaving).toBe(false);
            expect(m.ovdc).toBe(r.ovdc);
            expect(m.group && affinityRuleName('ns', 'c1', m.group)).toBe(r.name);
          }
          const cp = r.name.endsWith('-controlplane');
          const want = cp ? s.controlPlane : s.machineDeployments;
          expect(want).toBeDefined();
          expect(r.mandatory).toBe(want === 'Required');
        }
        // Every eligible group of two or more has its rule.
        const eligible = ms.filter((m) => m.vm && !m.leaving && m.group);
        for (const m of eligible) {
          const name = affinityRuleName('ns', 'c1', m.group as NonNullable<AffinityMachine['group']>);
          const opted = 'controlPlane' in (m.group ?? {}) ? s.controlPlane : s.machineDeployments;
          const peers = eligible.filter(
            (o) => o.ovdc === m.ovdc && affinityRuleName('ns', 'c1', o.group as never) === name,
          );
          const rule = rules.find((r) => r.name === name && r.ovdc === m.ovdc);
          expect(rule !== undefined).toBe(!deleting && opted !== undefined && peers.length >= 2);
        }
      }),
    );
  });

  it('keeps long names within VCD’s 128 characters, distinct per group', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.string({ maxLength: 200 }),
        (cluster, md) => {
          const a = affinityRuleName('ns', cluster, { machineDeployment: md });
          const b = affinityRuleName('ns', cluster, { machineDeployment: `${md}x` });
          expect(a.length).toBeLessThanOrEqual(128);
          expect(a).not.toBe(b);
        },
      ),
    );
  });
});

/** Applies a step to the model as VCD would (a write lands whole). */
function apply(seen: SeenRule[], step: ReturnType<typeof decideAffinity>, n: number): SeenRule[] {
  switch (step.kind) {
    case 'CreateRule':
      return [
        ...seen,
        { ...step.rule, id: `new-${n}`, href: `/new-${n}`, enabled: true, polarity: 'Anti-Affinity' },
      ];
    case 'UpdateRule':
      return seen.map((r) =>
        r.id === step.seen.id
          ? {
              ...r,
              members: step.rule.members,
              mandatory: step.rule.mandatory,
              enabled: true,
              polarity: 'Anti-Affinity',
            }
          : r,
      );
    case 'DeleteRule':
      return seen.filter((r) => r.id !== step.seen.id);
    default:
      return seen;
  }
}

describe('decideAffinity', () => {
  it('converges to exactly the desired rules, writing only ours with two or more VMs', () => {
    fc.assert(
      fc.property(world, ({ spec: s, machines: ms, seen, deleting }) => {
        const desired = desiredAffinityRules(s, names, ms, deleting);
        const ours = oursFor(ms);
        const foreign = seen.filter((r) => !ours(r));
        let rules = seen;
        let writes = 0;
        for (;;) {
          const step = decideAffinity(desired, rules, ours);
          if (step.kind === 'Converged') break;
          writes++;
          expect(writes).toBeLessThanOrEqual(seen.length + desired.length);
          if (step.kind !== 'CreateRule') expect(ours(step.seen)).toBe(true);
          if (step.kind !== 'DeleteRule') expect(step.rule.members.length).toBeGreaterThanOrEqual(2);
          rules = apply(rules, step, writes);
        }
        expect(rules.filter((r) => !ours(r))).toEqual(foreign);
        const mine = rules.filter(ours);
        expect(
          mine.map((r) => [r.ovdc, r.name, r.mandatory, r.members, r.polarity, r.enabled]).sort(),
        ).toEqual(desired.map((r) => [r.ovdc, r.name, r.mandatory, r.members, 'Anti-Affinity', true]).sort());
      }),
    );
  });

  it('asks for no write when VCD already holds the desired rules', () => {
    fc.assert(
      fc.property(world, fc.array(fc.boolean()), ({ spec: s, machines: ms, deleting }, reversed) => {
        const desired = desiredAffinityRules(s, names, ms, deleting);
        const seen = desired.map((r, i) => ({
          ...r,
          // VCD may list the members in any order.
          members: reversed[i] ? [...r.members].reverse() : r.members,
          id: `r${i}`,
          href: `/r${i}`,
          enabled: true,
          polarity: 'Anti-Affinity',
        }));
        expect(decideAffinity(desired, seen, oursFor(ms))).toEqual({ kind: 'Converged' });
      }),
    );
  });

  it('takes a leaving machine’s VM out before anything is created', () => {
    fc.assert(
      fc.property(world, ({ spec: s, machines: ms, seen, deleting }) => {
        const desired = desiredAffinityRules(s, names, ms, deleting);
        const leaving = new Set(ms.filter((m) => m.leaving && m.vm).map((m) => m.vm));
        const ours = oursFor(ms);
        const holding = seen.some((r) => ours(r) && r.members.some((vm) => leaving.has(vm)));
        const step = decideAffinity(desired, seen, ours);
        if (holding) expect(step.kind).not.toBe('CreateRule');
        if (holding) expect(step.kind).not.toBe('Converged');
      }),
    );
  });
});
