/**
 * The Prometheus and conditions gates in the planner, on random fleets and groups: a group with a
 * gate closed or erroring never schedules or grants a node, never frees the slot of a rebooted
 * node (it keeps it, or is marked failed past its deadline), and never exceeds its budget; a
 * group whose gates are all open plans exactly as one without gates.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyWrites, type HealthGateState, type NodeSnapshot, plan } from '../../src/index.js';
import { A, arbGroups, arbNodes, budgetOracle, countsOracle, K, L, NOW, startsCycle } from './fixtures.js';

const arbState = fc.record({
  gate: fc.constantFrom('prometheus', 'conditions[0]', 'conditions[1]'),
  state: fc.constantFrom('Open' as const, 'Closed' as const, 'Error' as const),
  message: fc.string({ maxLength: 10 }),
});

const arbCase = fc.record({
  nodes: arbNodes(),
  groups: arbGroups(),
  health: fc.array(fc.array(arbState, { minLength: 1, maxLength: 3 }), { minLength: 4, maxLength: 4 }),
});

/** Granted, rebooted and not released: what only a release (Completed) or a failure ends. */
const returning = (n: NodeSnapshot): boolean =>
  n.annotations[K.grantedAt] !== undefined &&
  n.annotations[A.rebootOk] !== 'true' &&
  n.labels[L.afterReboot] !== 'true';

describe('health gates, property', () => {
  it('a closed or erroring gate lets nothing through, frees no slot, and keeps the budget', () => {
    fc.assert(
      fc.property(arbCase, ({ nodes, groups, health }) => {
        const names = [...groups.map((g) => g.name), 'default'];
        const gates = Object.fromEntries(names.map((n, i) => [n, { health: health[i] ?? [] }]));
        const closed = (group: string | undefined) =>
          (gates[group ?? '']?.health ?? []).some((h: HealthGateState) => h.state !== 'Open');
        const r = plan({ nodes, groups, now: NOW, gates });
        const after = applyWrites(nodes, r.writes);
        for (const w of r.writes) {
          const before = nodes.find((n) => n.name === w.node) as NodeSnapshot;
          if (closed(r.membership[w.node])) expect(startsCycle(w, before)).toBe(false);
        }
        for (const n of nodes) {
          const now = after.find((m) => m.name === n.name) as NodeSnapshot;
          if (closed(r.membership[n.name]) && returning(n) && n.annotations[K.clearFailure] === undefined)
            expect(
              now.annotations[K.grantedAt] !== undefined || now.annotations[K.failed] !== undefined,
            ).toBe(true);
        }
        for (const name of names) {
          const members = nodes.filter((n) => r.membership[n.name] === name);
          const spec = groups.find((g) => g.name === name)?.spec;
          const budget = budgetOracle(
            spec?.maxUnavailable ?? (name === 'default' ? 1 : undefined),
            members.length,
          );
          const was = members.filter((n) => countsOracle(n)).length;
          const is = after.filter((n) => r.membership[n.name] === name && countsOracle(n)).length;
          expect(is).toBeLessThanOrEqual(Math.max(was, budget));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('open gates change no write', () => {
    fc.assert(
      fc.property(arbNodes(), arbGroups(), (nodes, groups) => {
        const open: HealthGateState[] = [{ gate: 'prometheus', state: 'Open', message: 'ok' }];
        const gates = Object.fromEntries(
          [...groups.map((g) => g.name), 'default'].map((n) => [n, { health: open }]),
        );
        const withGates = plan({ nodes, groups, now: NOW, gates });
        const without = plan({ nodes, groups, now: NOW });
        expect(withGates.writes).toEqual(without.writes);
        expect(Object.values(withGates.groupStatus).every((s) => s.gates?.[0]?.state === 'Open')).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
