/**
 * The VCDCluster's VM anti-affinity rules on the VCD side: the machines as the decision sees them,
 * the rules read (one GET per VDC involved, none while they are not in play: {@link affinityInPlay}),
 * and the one write {@link decideAffinity} asks for, returned as its task (never awaited).
 */
import type { Client } from '@capstan/runtime';
import { type Machine, MachineType } from '../api/capi.js';
import {
  CLUSTER_NAME_LABEL,
  CONTROL_PLANE_LABEL,
  Conditions,
  DEPLOYMENT_NAME_LABEL,
  vmUrnOfProviderId,
} from '../api/keys.js';
import type { VCDCluster, VCDClusterStatus, VCDMachine } from '../api/types.js';
import {
  type AffinityMachine,
  type AffinityStep,
  decideAffinity,
  desiredAffinityRules,
  groupRuleNames,
  type MachineGroup,
  type SeenRule,
} from '../decide/affinity.js';
import { VM_NOT_FOUND } from '../decide/drift.js';
import { placementOf } from '../machine/placement.js';
import {
  createAffinityRule,
  deleteAffinityRule,
  listAffinityRules,
  updateAffinityRule,
} from '../vcd/affinity.js';
import type { Task } from '../vcd/client.js';
import type { Connection } from '../vcd/connections.js';

/** A rule as published in `status.affinityRules`. */
export type AffinityRuleStatus = NonNullable<VCDClusterStatus['affinityRules']>[number];

function groupOf(machine: Machine | undefined): MachineGroup | undefined {
  const labels = machine?.metadata.labels ?? {};
  if (labels[CONTROL_PLANE_LABEL] !== undefined) return { controlPlane: true };
  const md = labels[DEPLOYMENT_NAME_LABEL];
  return md ? { machineDeployment: md } : undefined;
}

/** The cluster's VCDMachines as the decision sees them (group from their Machine, VDC from their placement). */
export function affinityMachines(
  vcdCluster: VCDCluster,
  machines: Machine[],
  vcdMachines: VCDMachine[],
): AffinityMachine[] {
  const byInfra = new Map(machines.map((m) => [m.spec?.infrastructureRef?.name, m]));
  return vcdMachines.flatMap((vm) => {
    const machine = byInfra.get(vm.metadata.name);
    const placement = placementOf(vcdCluster, vm, machine);
    if ('error' in placement) return [];
    const group = groupOf(machine);
    // A VM found gone (drift) cannot be named in a rule: VCD would refuse the whole rule.
    const gone = vm.status?.conditions?.some(
      (c) => c.type === Conditions.VMProvisioned && c.status === 'False' && c.reason === VM_NOT_FOUND,
    );
    const urn = gone ? undefined : vmUrnOfProviderId(vm.spec.providerID);
    return [
      {
        ...(group ? { group } : {}),
        ovdc: placement.ovdc,
        ...(urn ? { vm: urn } : {}),
        leaving:
          vm.metadata.deletionTimestamp !== undefined || machine?.metadata.deletionTimestamp !== undefined,
      },
    ];
  });
}

/** What one look found: the step, our rules before it, and its write (none for `Converged`). */
export interface AffinityLook {
  step: AffinityStep;
  /** Our rules as VCD showed them (before the write). */
  rules: AffinityRuleStatus[];
  write?: () => Promise<Task>;
}

/** The operations (recorded with their task) of the rules' writes. */
export const AFFINITY_OPERATIONS: ReadonlySet<string> = new Set(['CreateRule', 'UpdateRule', 'DeleteRule']);

/**
 * Whether the rules need a look: the option on, a rule of ours recorded, a rule write's task
 * recorded (a rule it made is recorded nowhere else), or their condition still set (it goes only
 * once a look finds the option off and no rule of ours, so a failed look keeps it).
 */
export const affinityInPlay = (vcdCluster: VCDCluster): boolean =>
  Boolean(vcdCluster.spec.antiAffinity) ||
  (vcdCluster.status?.affinityRules?.length ?? 0) > 0 ||
  AFFINITY_OPERATIONS.has(vcdCluster.status?.task?.operation ?? '') ||
  (vcdCluster.status?.conditions ?? []).some((c) => c.type === Conditions.AntiAffinityRulesReady);

/** Reads the rules and decides. Undefined (no VCD call) when they are not in play ({@link affinityInPlay}). */
export async function lookAtAffinity(
  client: Client,
  connection: Connection,
  vcdCluster: VCDCluster,
  clusterName: string,
  vcdMachines: VCDMachine[],
): Promise<AffinityLook | undefined> {
  if (!affinityInPlay(vcdCluster)) return undefined;
  const recorded = vcdCluster.status?.affinityRules ?? [];
  const spec = vcdCluster.spec.antiAffinity;
  const namespace = vcdCluster.metadata.namespace as string;
  const capiMachines = (
    await client.list(MachineType, { namespace, labelSelector: `${CLUSTER_NAME_LABEL}=${clusterName}` })
  ).items;
  const machines = affinityMachines(vcdCluster, capiMachines, vcdMachines);
  const names = { namespace, cluster: vcdCluster.metadata.name as string };
  const deleting = vcdCluster.metadata.deletionTimestamp !== undefined;
  const desired = desiredAffinityRules(spec, names, machines, deleting);
  const vdcs = new Set([
    ...machines.filter((m) => m.group).map((m) => m.ovdc),
    ...recorded.map((r) => r.ovdc),
    ...desired.map((r) => r.ovdc),
  ]);
  const hrefs = new Map<string, string>();
  const seen: SeenRule[] = [];
  for (const ovdc of [...vdcs].sort()) {
    const href = (await connection.directory.vdc(ovdc)).href;
    hrefs.set(ovdc, href);
    seen.push(...(await listAffinityRules(connection.vcd, href, ovdc)));
  }
  const recordedIds = new Set(recorded.map((r) => r.id));
  const groupNames = groupRuleNames(names, machines);
  const ours = (r: SeenRule) => recordedIds.has(r.id) || groupNames.has(r.name);
  const step = decideAffinity(desired, seen, ours);
  const rules = seen.filter(ours).map((r) => ({
    name: r.name,
    id: r.id,
    ovdc: r.ovdc,
    mandatory: r.mandatory,
    members: [...r.members].sort(),
  }));
  const write = writeOf(connection, step, hrefs);
  return { step, rules, ...(write ? { write } : {}) };
}

function writeOf(
  connection: Connection,
  step: AffinityStep,
  vdcHrefs: Map<string, string>,
): (() => Promise<Task>) | undefined {
  const { vcd } = connection;
  switch (step.kind) {
    case 'CreateRule':
      return () => createAffinityRule(vcd, vdcHrefs.get(step.rule.ovdc) as string, step.rule);
    case 'UpdateRule':
      return () => updateAffinityRule(vcd, step.seen, step.rule);
    case 'DeleteRule':
      return () => deleteAffinityRule(vcd, step.seen);
    default:
      return undefined;
  }
}

/** The rule a step writes, by name (for its event). */
export const affinityRuleOf = (step: AffinityStep): string =>
  step.kind === 'CreateRule' || step.kind === 'UpdateRule'
    ? step.rule.name
    : step.kind === 'DeleteRule'
      ? step.seen.name
      : '';
