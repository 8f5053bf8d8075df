/**
 * VCDCluster's anti-affinity: `spec.antiAffinity` (opt-in, per control plane and per
 * MachineDeployment) and `status.affinityRules` (the rules as VCD last showed them).
 */

type Schema = Record<string, unknown>;

const antiAffinityMode = (group: string): Schema => ({
  type: 'string',
  enum: ['Required', 'Preferred'],
  description: `One VCD anti-affinity rule (per VDC) over the VMs of ${group}: Required (VCD's IsMandatory: not even a host failover breaks it) or Preferred (kept apart as the hosts allow). Absent: no rule.`,
});

/** VCDCluster.spec.antiAffinity: opt-in VCD VM anti-affinity rules per machine group. */
export const antiAffinitySchema: Schema = {
  type: 'object',
  description:
    'Keep the VMs of a group on different ESXi hosts with VCD VM anti-affinity rules (a rule needs two VMs: a group of one has none).',
  properties: {
    controlPlane: antiAffinityMode('the control plane'),
    machineDeployments: antiAffinityMode('each MachineDeployment, one rule each'),
  },
};

/** VCDCluster.status.affinityRules: the rules as VCD last showed them. */
export const affinityRulesStatusSchema: Schema = {
  type: 'array',
  maxItems: 1000,
  description: 'The VM anti-affinity rules this cluster keeps, as VCD last showed them.',
  items: {
    type: 'object',
    required: ['name', 'id', 'ovdc'],
    properties: {
      name: { type: 'string' },
      id: { type: 'string' },
      ovdc: { type: 'string' },
      mandatory: { type: 'boolean' },
      members: { type: 'array', items: { type: 'string' }, description: 'VM URNs' },
    },
  },
};
