/**
 * The safe order of a rollout, as one pure decision: the coordinator's objects are applied first;
 * the agent's only once the coordinator runs the target completely (so agents never speak to a
 * coordinator older than themselves); what the target no longer has is pruned only once both
 * run it. The DaemonSet then rolls node by node, bounded by its maxUnavailable.
 */
import type { ProtocolName } from '@capstan/reboot-protocol';
import type { ComponentName } from '../api/reboot-stack.js';
import { completeAt, type Rollout } from './rollout.js';

/** What each component should run. */
export interface Target {
  version: string;
  protocols: Record<ComponentName, ProtocolName>;
}

/** Where a rollout stands and what to write now. */
export interface UpgradePlan {
  /** Components whose objects to apply at the target, in order. */
  apply: ComponentName[];
  /** Delete the stack's objects the target no longer has. */
  prune: boolean;
  phase: 'RollingOutCoordinator' | 'RollingOutAgent' | 'Complete';
}

/**
 * The plan for `target` given the workloads' rollouts as last read (after this round's apply of
 * the coordinator, or undefined when a workload does not exist yet).
 */
export function planUpgrade(target: Target, rollouts: Partial<Record<ComponentName, Rollout>>): UpgradePlan {
  const coordinatorDone = completeAt(rollouts.coordinator, target.version, target.protocols.coordinator);
  if (!coordinatorDone) return { apply: ['coordinator'], prune: false, phase: 'RollingOutCoordinator' };
  const agentDone = completeAt(rollouts.agent, target.version, target.protocols.agent);
  if (!agentDone) return { apply: ['coordinator', 'agent'], prune: false, phase: 'RollingOutAgent' };
  return { apply: ['coordinator', 'agent'], prune: true, phase: 'Complete' };
}
