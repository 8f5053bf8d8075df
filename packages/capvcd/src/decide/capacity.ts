/**
 * A VCDMachineTemplate's capacity (the Cluster API contract's `status.capacity`, which the cluster
 * autoscaler reads to scale a MachineDeployment from zero), as a pure function: CPU and memory
 * from the template's own sizing fields where it sets them, else from its VDC sizing policy.
 * Published only whole (cpu and memory), never a guess: otherwise the reason is said.
 */

/** What a VDC sizing policy fixes (VCD leaves a field null when the policy does not). */
export interface SizingPolicyFacts {
  cpuCount?: number | null;
  memoryMb?: number | null;
}

/** Sizing the template's spec sets directly (for VDCs without sizing policies). */
export interface TemplateSizing {
  numCPUs?: number;
  memoryMiB?: number;
}

/** The capacity, or why it cannot be said. */
export type CapacityOutcome =
  | { kind: 'known'; capacity: { cpu: string; memory: string } }
  | { kind: 'unknown'; reason: 'NoSizing' | 'PolicyIncomplete'; message: string };

const positive = (n: number | null | undefined): n is number =>
  typeof n === 'number' && Number.isInteger(n) && n > 0;

/** The template's capacity. Pure. */
export function templateCapacity(
  own: TemplateSizing,
  policy?: SizingPolicyFacts,
  policyName?: string,
): CapacityOutcome {
  const cpu = positive(own.numCPUs) ? own.numCPUs : policy?.cpuCount;
  const memory = positive(own.memoryMiB) ? own.memoryMiB : policy?.memoryMb;
  if (positive(cpu) && positive(memory))
    return { kind: 'known', capacity: { cpu: String(cpu), memory: `${memory}Mi` } };
  if (!policy)
    return {
      kind: 'unknown',
      reason: 'NoSizing',
      message: 'neither a sizing policy nor numCPUs and memoryMiB: the VM takes its catalog template’s size',
    };
  const missing = [positive(cpu) ? undefined : 'CPU count', positive(memory) ? undefined : 'memory']
    .filter(Boolean)
    .join(' and ');
  return {
    kind: 'unknown',
    reason: 'PolicyIncomplete',
    message: `sizing policy ${policyName ?? ''} fixes no ${missing}`,
  };
}

/** The sizing the template's spec sets itself, read defensively (the fields are optional). */
export function ownSizing(spec: object): TemplateSizing {
  const s = spec as { numCPUs?: unknown; memoryMiB?: unknown };
  return {
    ...(typeof s.numCPUs === 'number' ? { numCPUs: s.numCPUs } : {}),
    ...(typeof s.memoryMiB === 'number' ? { memoryMiB: s.memoryMiB } : {}),
  };
}
