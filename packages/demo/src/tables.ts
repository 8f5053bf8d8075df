/** The tables of acts 1 and 2: Cluster API Machines with their VMs, and the operators' rollouts. */

/** A Machine's line: Cluster API's phase, its VM in VCD, its address and the VCD calls made for it. */
export interface MachineRow {
  name: string;
  controlPlane: boolean;
  phase: string;
  /** The Kubernetes version Cluster API asks of it (`spec.version`). */
  version: string | undefined;
  /** The Node Cluster API found for it (`status.nodeRef`). */
  node: string | undefined;
  vm: string | undefined;
  /** The VM's VCD status (`POWERED_ON`, ...), `-` before it exists. */
  vmStatus: string;
  ip: string | undefined;
  /** VCD requests about this VM (its own paths and its tasks). */
  calls: number;
}

/** The Machine table. */
export function machineTable(rows: MachineRow[]): string[] {
  const lines = [
    `  ${'machine'.padEnd(34)}${'role'.padEnd(15)}${'phase'.padEnd(14)}${'version'.padEnd(9)}${'VM'.padEnd(12)}${'IP'.padEnd(14)}${'calls'.padStart(5)}`,
  ];
  for (const r of rows) {
    lines.push(
      `  ${r.name.padEnd(34)}${(r.controlPlane ? 'control plane' : 'worker').padEnd(15)}${r.phase.padEnd(14)}${(r.version ?? '').padEnd(9)}${r.vmStatus.padEnd(12)}${(r.ip ?? '').padEnd(14)}${String(r.calls).padStart(5)}`,
    );
  }
  return lines;
}

/** One operator component's rollout, as its workload reports it. */
export interface ComponentRow {
  /** `Deployment capstan-system/capstan-coordinator`, ... */
  name: string;
  desired: number;
  updated: number;
  available: number;
  /** Version label of the running workload, when it has one. */
  version: string;
}

/** Whether a component has every desired replica updated and available (and at least one). */
export const componentAvailable = (c: ComponentRow): boolean =>
  c.desired > 0 && c.updated === c.desired && c.available === c.desired;

/** The components table. */
export function componentTable(rows: ComponentRow[]): string[] {
  const lines = [
    `  ${'component'.padEnd(52)}${'version'.padEnd(9)}${'desired'.padStart(8)}${'updated'.padStart(8)}${'available'.padStart(10)}`,
  ];
  for (const c of rows) {
    lines.push(
      `  ${c.name.padEnd(52)}${c.version.padEnd(9)}${String(c.desired).padStart(8)}${String(c.updated).padStart(8)}${String(c.available).padStart(10)}${componentAvailable(c) ? '  ✓' : ''}`,
    );
  }
  return lines;
}
