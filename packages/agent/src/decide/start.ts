/**
 * The phases of a freshly started process. A start is what a boot looks like: the agent clears
 * `reboot-in-progress` (and `reboot-needed` under a grant from an earlier boot; without a grant
 * the last known answer stands), uncordons only what it cordoned, and starts no cycle on a grant
 * from before this boot until the coordinator withdraws it (FLUO's reboot-loop guard).
 */
import {
  ADMIN_REBOOT_REQUEST_ANNOTATION,
  AGENT_REBOOT_HISTORY_ANNOTATION,
  AGENT_SOURCE_ERROR_ANNOTATION,
  AGENT_TARGET_VERSION_ANNOTATION,
  FALSE,
} from '@capstan/reboot-protocol';
import type { Decision } from '../api/types.js';
import { diff, isSetAside, type PhaseInput, type PhaseStep, patchDecision, reportTarget } from './facts.js';
import { historyWith } from './quarantine.js';
import { verifyBootedVersion } from './verify.js';

/**
 * `AwaitingSource`: a fresh process waits for its source's first answer. The node's
 * `reboot-needed` is the previous boot's answer: acting on it (resuming a cycle under a grant
 * that a late kubelet's boot ID makes look current) could reboot the node a second time.
 */
export function awaitingSource({ view, memory }: PhaseInput): Decision {
  // Only whether the source can tell is written: a source that cannot is never silence.
  const error = diff(view.node, {
    annotations: { [AGENT_SOURCE_ERROR_ANNOTATION]: view.sourceError ?? null },
    labels: {},
  });
  if (error) return patchDecision('AwaitingSource', 'reporting that the source cannot tell', error, memory);
  return {
    phase: 'AwaitingSource',
    why: `agent started: waiting for the reboot-needed source's first answer${view.sourceError ? ` (it cannot tell: ${view.sourceError})` : ''}`,
    action: { kind: 'wait' },
    memory,
  };
}

/** `Starting`: the start-of-process cleanup, or resuming a cycle this very boot began. */
export function starting(input: PhaseInput): PhaseStep {
  const { view, memory, config, grant: f } = input;
  const { node } = view;
  const k = config.protocol.annotations;
  // A grant fenced to this very boot proves no reboot happened since it: the process restarted
  // mid-cycle (pod restart), so the cycle resumes instead of being thrown away.
  if (f.grantFencedToThisBoot && (f.inProgress || f.needed)) return { settle: { ...memory, booted: true } };
  const mismatch = verifyBootedVersion(input);
  if (mismatch) return mismatch;
  // reboot-needed is cleared only under a grant from an earlier boot (so the coordinator can
  // verify and withdraw it); without one it is the node's place in the queue: the last known
  // answer stands until the source answers again.
  // A set-aside node keeps the agent's cordon until an administrator clears it.
  const lift = f.agentMade && !isSetAside(node);
  const cleanup = diff(node, {
    annotations: {
      ...(f.ok
        ? {
            [k.rebootNeeded]: FALSE,
            [AGENT_TARGET_VERSION_ANNOTATION]: null,
            // An administrator's request is done once the node is back from its reboot.
            ...(f.inProgress ? { [ADMIN_REBOOT_REQUEST_ANNOTATION]: null } : {}),
            // A cycle completed (it was in progress when the node went down): counted for the
            // reboot-loop quarantine; a restart later in this boot finds it cleared.
            ...((config.quarantineAfter ?? 0) > 0 && f.inProgress
              ? {
                  [AGENT_REBOOT_HISTORY_ANNOTATION]: historyWith(
                    node.annotations[AGENT_REBOOT_HISTORY_ANNOTATION],
                    view.now,
                    config.quarantineWindowMs ?? 0,
                  ),
                }
              : {}),
          }
        : {}),
      [k.rebootInProgress]: FALSE,
      ...(lift ? { [k.agentMadeUnschedulable]: FALSE } : {}),
    },
    labels: f.ok ? { [config.protocol.labels.rebootNeeded]: FALSE } : {},
    ...(lift && node.unschedulable ? { unschedulable: false } : {}),
  });
  if (!cleanup) return { settle: { ...memory, booted: true, awaitingGrantClear: f.ok } };
  const decision: Decision = patchDecision(
    'Starting',
    f.ok
      ? 'agent started: clearing reboot-needed and reboot-in-progress'
      : 'agent started: clearing reboot-in-progress',
    cleanup,
    memory,
  );
  if (cleanup.unschedulable === false) {
    decision.action = {
      kind: 'patch',
      patch: cleanup,
      event: {
        type: 'Normal',
        reason: 'Uncordoned',
        action: 'Uncordon',
        note: 'agent started: uncordoned the node it had cordoned',
      },
    };
  }
  return decision;
}

/** `AwaitingGrantClear`: started with a grant from an earlier boot; report, ask nothing, wait. */
export function awaitingGrantClear({ view, memory, config, grant: f }: PhaseInput): PhaseStep {
  if (!f.ok) return { settle: { ...memory, awaitingGrantClear: false } };
  const report = diff(view.node, reportTarget(view, config.protocol, false));
  if (report) return patchDecision('AwaitingGrantClear', 'reporting status', report, memory);
  return {
    phase: 'AwaitingGrantClear',
    why: `agent started with ${config.protocol.annotations.rebootOk}=true from before this boot; waiting for the coordinator to withdraw it`,
    action: { kind: 'wait' },
    memory,
  };
}
