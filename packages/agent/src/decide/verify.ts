/**
 * The booted version verified: a cycle whose source named the version it reboots into
 * (`target-version`, written with the cordon) is checked at the first start after the reboot
 * against os-release. A match lets the start clean up as usual (and drops the target); a
 * mismatch (a failed update, a rollback, os-release unreadable) is a `VersionMismatch` failure:
 * reported, and the node left in progress and cordoned so the coordinator does not count the
 * reboot as verified (its failure policy applies) until the grant is withdrawn.
 */
import {
  AGENT_FAILURE_ANNOTATION,
  AGENT_TARGET_VERSION_ANNOTATION,
  FALSE,
  formatAgentFailure,
  parseAgentFailure,
} from '@capstan/reboot-protocol';
import type { Decision } from '../api/types.js';
import type { PhaseInput, PhaseStep } from './facts.js';

/** Why the booted version is not the target, or undefined when it is (or there is no target). */
export function versionMismatch(target: string | undefined, booted: string | undefined): string | undefined {
  if (target === undefined || target === '') return undefined;
  if (booted === undefined) return `rebooted for version ${target}, but os-release names no version`;
  return booted === target ? undefined : `rebooted for version ${target}, but booted ${booted}`;
}

/** At the first start after a reboot (a grant from before this boot): the check, or undefined to go on. */
export function verifyBootedVersion({ view, memory, config, grant: f }: PhaseInput): PhaseStep | undefined {
  if (!f.ok || f.grantFencedToThisBoot) return undefined;
  const why = versionMismatch(view.node.annotations[AGENT_TARGET_VERSION_ANNOTATION], view.os?.version);
  if (why === undefined) return undefined;
  const k = config.protocol.annotations;
  const reported = parseAgentFailure(view.node.annotations[AGENT_FAILURE_ANNOTATION]);
  // Once written, an agent restart in the same state does not write it again.
  const known = reported?.reason === 'VersionMismatch' && reported.message === why;
  const next = { ...memory, booted: true, awaitingGrantClear: true };
  if (known && view.node.annotations[k.rebootNeeded] === FALSE) return { settle: next };
  const decision: Decision = {
    phase: 'Starting',
    why,
    action: {
      kind: 'patch',
      patch: {
        annotations: {
          [k.rebootNeeded]: FALSE,
          ...(known
            ? {}
            : { [AGENT_FAILURE_ANNOTATION]: formatAgentFailure('VersionMismatch', view.now, why) }),
        },
        labels: { [config.protocol.labels.rebootNeeded]: FALSE },
      },
      failure: 'VersionMismatch',
      event: {
        type: 'Warning',
        reason: 'VersionMismatch',
        action: 'VerifyReboot',
        note: `${why}; left in progress and cordoned: the reboot is not verified`,
      },
    },
    memory: next,
  };
  return decision;
}
