/**
 * Act 1's live table of Cluster API Machines: each one's phase, version and Node beside its VM in
 * Cloud Director (vcdsim's inspection) and the VCD calls made for it; a line per change, the table
 * redrawn in place.
 */
import { type Machine, MachineType, type VCDMachine, VCDMachineType } from '@capstan/capvcd';
import type { Client } from '@capstan/runtime';
import { type VcdSim, VmStatus } from '@capstan/vcdsim';
import type { ActContext } from './act.js';
import { type MachineRow, machineTable } from './tables.js';

const statusName = (status: number) =>
  Object.entries(VmStatus).find(([, v]) => v === status)?.[0] ?? String(status);

/** The Machines of one namespace as act 1 shows them; see the file comment. */
export class MachineWatch {
  /** The rows of the last look, control planes first. */
  rows: MachineRow[] = [];
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly ctx: ActContext,
    private readonly admin: Client,
    private readonly sim: VcdSim,
    private readonly namespace: string,
  ) {}

  /** Reads the Machines and their VMs, prints what changed, redraws the table with `status`. */
  async look(status: string): Promise<MachineRow[]> {
    const { admin, sim, namespace } = this;
    const machines = (await admin.list(MachineType, { namespace })).items;
    const infra = new Map(
      (await admin.list(VCDMachineType, { namespace })).items.map((m: VCDMachine) => [m.metadata.name, m]),
    );
    this.rows = machines.map((m) => this.row(m, infra.get(m.spec?.infrastructureRef?.name ?? '')));
    this.rows.sort((a, b) => Number(b.controlPlane) - Number(a.controlPlane) || a.name.localeCompare(b.name));
    for (const r of this.rows) {
      const state = `${r.phase.padEnd(13)} ${(r.version ?? '').padEnd(8)} VM ${r.vmStatus.padEnd(11)} ${r.ip ?? ''}`;
      if (this.seen.get(r.name) !== state) {
        this.seen.set(r.name, state);
        this.ctx.view.line(`  ${r.name.padEnd(34)}${state}`);
      }
    }
    const guestErrors = sim.inspect.errors();
    if (guestErrors.length > 0) this.ctx.fault('a guest boot hook', guestErrors[0]?.error);
    this.ctx.view.redraw(
      [
        `  VCD: ${sim.inspect.requestTotal()} calls, ${sim.inspect.tasks().length} tasks`,
        '',
        ...machineTable(this.rows),
      ],
      this.ctx.elapsed(),
      status,
    );
    return this.rows;
  }

  private row(m: Machine, vcdMachine: VCDMachine | undefined): MachineRow {
    const vmName = vcdMachine?.status?.vmName;
    const vm = vmName ? this.sim.inspect.vm(vmName) : undefined;
    return {
      name: m.metadata.name ?? '',
      controlPlane: m.metadata.labels?.['cluster.x-k8s.io/control-plane'] !== undefined,
      phase: m.status?.phase ?? 'Pending',
      version: (m.spec as { version?: string } | undefined)?.version,
      node: m.status?.nodeRef?.name,
      vm: vm?.name,
      vmStatus: vm ? statusName(vm.status) : '-',
      ip: vcdMachine?.status?.addresses?.find((a) => a.type === 'InternalIP')?.address,
      calls: vm ? this.sim.inspect.requestsFor(vm.id).length : 0,
    };
  }
}
