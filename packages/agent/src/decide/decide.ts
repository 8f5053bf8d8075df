/**
 * The agent's decisions: a pure function from what it sees (its node, its pods, the reboot-needed
 * source, os-release) and what it remembers since its process started, to the next single action.
 * No I/O here: `reconciler.ts` reads the world, calls {@link decide}, carries out the action and
 * calls it again until the answer is "wait".
 *
 * The cycle, one phase at a time ({@link phaseOf} names it, one function per phase decides):
 *
 *   AwaitingSource ─▶ Starting ─▶ AwaitingGrantClear ─▶ Idle ─▶ (Backoff) ─▶ Cordoning ─▶ Draining ─▶ Rebooting
 *                                                        ▲                      │             │  ▲           │
 *                                           (grant gone) ├──── Aborting ◀───────┴─────────────┤  └─ RebootRefused ◀┘
 *                                         (drain failed) └──── Abandoning ◀───────────────────┘   (kept drained,
 *                                                                                                  retried later)
 *
 *   (any phase of a booted agent, the grant withdrawn) ─▶ SetAside (cordoned until the clear) ─▶ Aborting
 *
 * A phase either decides (an action, and the memory to keep once it is carried out) or only
 * changes the memory (`settle`: the start-up check done, the drain clock started, a failure
 * noted), after which the phase is named again; this settles in a few steps.
 *
 * Safety (invariant 5): nothing is decided before the source's first answer; reboot only after
 * seeing `reboot-ok` ∧ `reboot-needed` with a grant that belongs to this boot, with the cordon
 * persisted (in-progress and cordon are one write) and the drain done (or timed out with
 * `forceReboot`); uncordon only what the agent cordoned (`agent-made-unschedulable`); after the
 * process starts, clear needed/in-progress and start no cycle until the grant is withdrawn.
 */
import { ADMIN_REBOOT_REQUEST_ANNOTATION } from '@capstan/reboot-protocol';
import type { AgentMemory, AgentPhase, AgentView, Decision, DecisionConfig } from '../api/types.js';
import { backoff, cordoning, failureBackoffLeft, idle, rebooting } from './cycle.js';
import { draining } from './drain.js';
import { abandoning, aborting } from './ending.js';
import {
  diff,
  grantFacts,
  isSetAside,
  type PhaseInput,
  type PhaseStep,
  patchDecision,
  reportTarget,
} from './facts.js';
import { isQuarantined, loopDetected, quarantining } from './quarantine.js';
import { rebootRefused } from './reboot-retry.js';
import { settingAside } from './set-aside.js';
import { awaitingGrantClear, awaitingSource, starting } from './start.js';

export { drainPlan, type GrantFacts, grantFacts, labelValue } from './facts.js';

/** More memory changes than any cycle makes in one decision: a bug, not a state. */
const MAX_SETTLE = 8;

/** The phase the agent is in, from what it sees and remembers. */
export function phaseOf(input: PhaseInput): AgentPhase {
  const { memory, view, grant: f } = input;
  if (memory.rebootRequestedAt !== undefined) return 'Rebooting';
  // Nothing is decided on the node's last answer alone: after a reboot it is the old boot's.
  if (!memory.booted && !view.sourceKnown) return 'AwaitingSource';
  if (!memory.booted) return 'Starting';
  if (memory.awaitingGrantClear) return 'AwaitingGrantClear';
  if (memory.failure) return memory.failure.reason === 'RebootFailed' ? 'RebootRefused' : 'Abandoning';
  // Set aside (its grant withdrawn): quarantined, cordoned, until an administrator clears it.
  if (isSetAside(view.node) && !f.ok) return 'SetAside';
  if (!(f.ok && f.needed && f.grantForThisBoot)) return f.inProgress || f.agentMade ? 'Aborting' : 'Idle';
  if (!f.inProgress && failureBackoffLeft(input) > 0) return 'Backoff';
  if (!f.inProgress || !view.node.unschedulable) return 'Cordoning';
  return 'Draining';
}

/**
 * The next step. Pure: the same view and memory give the same decision. The returned memory is
 * to be kept only once the action has been carried out (a failed write must not forget a failure).
 */
export function decide(view: AgentView, memory: AgentMemory, config: DecisionConfig): Decision {
  const grant = grantFacts(view.node, config.protocol);
  let current = memory;
  for (let i = 0; i < MAX_SETTLE; i++) {
    const step = stepOf({ view, memory: current, config, grant });
    if (!('settle' in step)) return step;
    current = step.settle;
  }
  throw new Error(
    `agent decision did not settle in ${MAX_SETTLE} steps (phase ${phaseOf({ view, memory: current, config, grant })})`,
  );
}

/** The phases before a cycle can run: they report (or not) on their own. */
const STARTING: ReadonlySet<AgentPhase> = new Set([
  'Rebooting',
  'AwaitingSource',
  'Starting',
  'AwaitingGrantClear',
]);

function stepOf(input: PhaseInput): PhaseStep {
  const phase = phaseOf(input);
  // Every phase of a running cycle first brings the status report up to date.
  const reporting = STARTING.has(phase) ? undefined : report(input);
  if (reporting) return reporting;
  switch (phase) {
    case 'Rebooting':
      return rebooting(input);
    case 'AwaitingSource':
      return awaitingSource(input);
    case 'Starting':
      return starting(input);
    case 'AwaitingGrantClear':
      return awaitingGrantClear(input);
    case 'Abandoning':
      return abandoning(input);
    case 'RebootRefused':
      return rebootRefused(input);
    case 'Aborting':
      return aborting(input);
    case 'Idle':
      return idle(input);
    case 'Backoff':
      return backoff(input);
    case 'Cordoning':
      return cordoning(input);
    case 'Draining':
      return draining(input);
    case 'SetAside':
      return settingAside(input);
  }
}

/** Reports what the source says (the coordinator reads reboot-needed); undefined when up to date. */
function report(input: PhaseInput): Decision | undefined {
  const { view, memory, config, grant: f } = input;
  const sourceAsks = view.sourceKnown && view.source ? view.source.rebootNeeded : f.needed;
  // An administrator's request is a second source (cleared by the start after the reboot).
  const asks = sourceAsks || !!view.node.annotations[ADMIN_REBOOT_REQUEST_ANNOTATION];
  if (loopDetected(view.node, asks, view.now, config)) return quarantining(input);
  // A quarantined node asks no more, whatever its source says.
  const wanted = asks && !isQuarantined(view.node);
  const patch = diff(view.node, reportTarget(view, config.protocol, wanted));
  return patch && patchDecision(f.inProgress ? 'Draining' : 'Idle', 'reporting status', patch, memory);
}
