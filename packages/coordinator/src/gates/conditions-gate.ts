/**
 * Reads the objects of a group's conditions gate for a round ({@link ConditionReads}: the
 * coordinator's informers once synced, else the API server once per object a round) and decides
 * each condition with {@link conditionVerdict}. A named object that is missing, or a kind that
 * cannot be read (no such resource, no RBAC), makes the condition an `Error`: the gate fails closed.
 */
import type { HealthGateState } from '../decide/health-gates.js';
import { conditionVerdict } from './cel-condition.js';
import type { ConditionReads, ConditionSpec } from './condition-reads.js';

/** Every condition's state now. */
export async function readConditionsGate(
  reads: ConditionReads,
  conditions: readonly ConditionSpec[],
): Promise<HealthGateState[]> {
  return Promise.all(
    conditions.map(async (c, i) => {
      const objects = await reads
        .read(c)
        .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
      return conditionVerdict({
        gate: `conditions[${i}]`,
        expression: c.expression,
        ...(c.message ? { message: c.message } : {}),
        objects,
      });
    }),
  );
}
