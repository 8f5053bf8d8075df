import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTROL_PLANE_LABEL,
  DEFAULT_WORKER_BUDGET,
  defaultRebootGroups,
} from '../src/decide/default-groups.js';

describe('the default RebootGroups', () => {
  it('control plane first and one at a time; workers after, 25% unless the stack says otherwise', () => {
    const [cp, workers] = defaultRebootGroups('capstan');
    expect(cp?.spec).toMatchObject({ maxUnavailable: 1, order: 0 });
    expect(workers?.spec).toMatchObject({ maxUnavailable: DEFAULT_WORKER_BUDGET, order: 1 });
    expect(DEFAULT_WORKER_BUDGET).toBe('25%');
  });

  it("property: the workers' budget is the stack's; the control plane's never changes; selectors split the nodes", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 1, max: 500 }),
          fc.integer({ min: 1, max: 100 }).map((n) => `${n}%`),
        ),
        (budget) => {
          const [cp, workers] = defaultRebootGroups('s', budget);
          expect(workers?.spec.maxUnavailable).toBe(budget);
          expect(cp?.spec.maxUnavailable).toBe(1);
          const op = (g: typeof cp) =>
            (
              g?.spec.nodeSelector as
                | { matchExpressions: Array<{ key: string; operator: string }> }
                | undefined
            )?.matchExpressions[0];
          expect(op(cp)).toEqual({ key: CONTROL_PLANE_LABEL, operator: 'Exists' });
          expect(op(workers)).toEqual({ key: CONTROL_PLANE_LABEL, operator: 'DoesNotExist' });
        },
      ),
    );
  });
});
