/**
 * The stack's conditions from where its rollout stands. Pure.
 *
 * - Available: both components run completely at some version (the observed one) and the agent
 *   runs on at least one node.
 * - Progressing: a rollout or a migration is under way (reason says which step).
 * - Degraded: the spec cannot be carried out (reason: the problem), or the agent's selector
 *   matches no node.
 */
import type { ConditionInput } from '@capstan/runtime';
import type { StackProblem } from '../api/validation.js';

/** What the conditions are computed from. */
export interface StackState {
  generation?: number;
  problems: readonly StackProblem[];
  /** Both workloads complete at the version and protocol rendered this round. */
  complete: boolean;
  /** Both workloads complete at whatever they last rolled out (serving). */
  serving: boolean;
  /** The rollout's or migration's step, when one runs. */
  progress?: { reason: string; message: string };
  /** Nodes the agent DaemonSet wants to run on. */
  agentNodes: number;
}

/** The three conditions of a stack. */
export function stackConditions(state: StackState): ConditionInput[] {
  const observedGeneration = state.generation;
  const c = (type: string, status: 'True' | 'False', reason: string, message: string): ConditionInput => ({
    type,
    status,
    reason,
    message,
    observedGeneration,
  });
  const problem = state.problems[0];
  const noNodes = state.complete && state.agentNodes === 0;
  const available = state.serving && state.agentNodes > 0;
  return [
    available
      ? c('Available', 'True', 'RolledOut', 'the coordinator and the agents are running')
      : c(
          'Available',
          'False',
          noNodes ? 'NoNodesSelected' : 'NotRolledOut',
          noNodes ? 'the agent runs on no node' : 'the coordinator or the agents are not running completely',
        ),
    problem
      ? c('Progressing', 'False', problem.reason, problem.message)
      : state.progress
        ? c('Progressing', 'True', state.progress.reason, state.progress.message)
        : c('Progressing', 'False', 'Complete', 'every component runs the desired version'),
    problem
      ? c('Degraded', 'True', problem.reason, problem.message)
      : noNodes
        ? c('Degraded', 'True', 'NoNodesSelected', 'the agent node selector matches no node')
        : c('Degraded', 'False', 'AsExpected', 'nothing stands in the way'),
  ];
}
