/**
 * Values the protocol does not allow. Read as unset (never thrown on), reported as findings, and
 * — for the coordinator's own keys — cleaned up, so the finding is made once.
 */
import { coordinatorKeys, FALSE, parseTimestamp, TRUE } from '@capstan/reboot-protocol';
import type { Finding } from './finding.js';
import type { GroupPolicy } from './group-policy.js';
import { isUsableBootId, type NodeDraft } from './node-state.js';

const SHOWN = 64;

function shown(value: string): string {
  return JSON.stringify(value.length > SHOWN ? `${value.slice(0, SHOWN)}…` : value);
}

function report(findings: Finding[], draft: NodeDraft, key: string, value: string, fix: string): void {
  findings.push({
    kind: 'GarbageValue',
    severity: 'Warning',
    node: draft.name,
    key,
    message: `node ${draft.name}: ${key}=${shown(value)} is not allowed; ${fix}`,
  });
}

/**
 * Reports every disallowed value on the node and cleans up the coordinator's own keys (withdraws
 * a garbage `reboot-ok`, removes garbage hook labels and timestamps). Timestamps of a grant are
 * re-recorded by the grant rules, not here.
 */
export function inspectValues(draft: NodeDraft, group: GroupPolicy, findings: Finding[]): void {
  const a = draft.protocol.annotations;
  const ann = draft.annotations;
  const flag = (v: string | undefined): boolean => v === undefined || v === TRUE || v === FALSE;

  for (const key of [a.rebootNeeded, a.rebootPaused, a.rebootInProgress, a.agentMadeUnschedulable]) {
    const v = ann[key];
    if (!flag(v)) report(findings, draft, key, v as string, 'read as false');
  }
  for (const key of group.hookKeys) {
    const v = ann[key];
    if (!flag(v)) report(findings, draft, key, v as string, 'read as false');
  }
  const ok = ann[a.rebootOk];
  if (!flag(ok)) {
    report(findings, draft, a.rebootOk, ok as string, 'withdrawn');
    draft.withdrawRebootOk();
    draft.record('Normalized');
  }
  for (const key of [draft.protocol.labels.beforeReboot, draft.protocol.labels.afterReboot]) {
    const v = draft.labels[key];
    if (v !== undefined && v !== TRUE) {
      report(findings, draft, key, v, 'label removed');
      draft.removeLabel(key);
      draft.record('Normalized');
    }
  }
  for (const key of [coordinatorKeys.requestedAt, coordinatorKeys.rebootedAt]) {
    const v = ann[key];
    if (v !== undefined && parseTimestamp(v) === undefined) {
      report(findings, draft, key, v, 'removed');
      draft.removeAnnotation(key);
      draft.record('Normalized');
    }
  }
  const grantedAt = ann[coordinatorKeys.grantedAt];
  if (grantedAt !== undefined && parseTimestamp(grantedAt) === undefined) {
    report(findings, draft, coordinatorKeys.grantedAt, grantedAt, 'read as unknown grant time');
  }
  const bootId = ann[coordinatorKeys.grantedBootId];
  if (bootId !== undefined && !isUsableBootId(bootId)) {
    report(findings, draft, coordinatorKeys.grantedBootId, bootId, 'read as unknown boot ID');
  }
}
