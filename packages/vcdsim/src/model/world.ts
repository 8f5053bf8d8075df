/**
 * Everything the simulated cloud holds, with the lookups handlers need. Tenancy is enforced here:
 * `visible*` lookups take the caller's org and answer VCD's 403 both for another org's object and
 * for an object that does not exist, so the two cannot be told apart (as on real VCD).
 */
import { errors, type VcdError } from '../server/errors.js';
import type { VmAffinityRule } from './affinity.js';
import type { IpSpace } from './ip-space.js';
import type {
  Catalog,
  ComputePolicy,
  EdgeGateway,
  LbPool,
  NamedDisk,
  Network,
  Org,
  SegAssignment,
  StorageProfile,
  User,
  VApp,
  VAppTemplate,
  Vdc,
  VirtualService,
  Vm,
} from './types.js';

export type * from './affinity.js';
export type * from './ip-space.js';
export type * from './types.js';
export { VmStatus } from './types.js';

/** The simulator's state. Maps are keyed by bare UUID. */
export class World {
  readonly orgs = new Map<string, Org>();
  readonly users: User[] = [];
  readonly vdcs = new Map<string, Vdc>();
  readonly storageProfiles = new Map<string, StorageProfile>();
  readonly computePolicies = new Map<string, ComputePolicy>();
  readonly networks = new Map<string, Network>();
  readonly edgeGateways = new Map<string, EdgeGateway>();
  readonly segAssignments = new Map<string, SegAssignment>();
  readonly catalogs = new Map<string, Catalog>();
  readonly templates = new Map<string, VAppTemplate>();
  readonly vapps = new Map<string, VApp>();
  readonly vms = new Map<string, Vm>();
  readonly pools = new Map<string, LbPool>();
  readonly virtualServices = new Map<string, VirtualService>();
  readonly ipSpaces = new Map<string, IpSpace>();
  readonly affinityRules = new Map<string, VmAffinityRule>();
  /** Independent (named) disks. */
  readonly disks = new Map<string, NamedDisk>();

  orgByName(name: string): Org | undefined {
    for (const o of this.orgs.values()) if (o.name === name) return o;
    return undefined;
  }

  user(orgId: string, name: string): User | undefined {
    return this.users.find((u) => u.orgId === orgId && u.name === name);
  }

  /** The org a VM belongs to (through its vApp). */
  vmOrgId(vm: Vm): string | undefined {
    return this.vapps.get(vm.vappId)?.orgId;
  }

  /** The template VM with that id, and its template. */
  templateVm(vmId: string): VAppTemplate | undefined {
    for (const t of this.templates.values()) if (t.vm.id === vmId) return t;
    return undefined;
  }

  /** Networks of a VDC by name (its own, and its data center groups'). */
  vdcNetwork(vdcId: string, name: string): Network | undefined {
    for (const n of this.networks.values()) if (availableIn(n, vdcId) && n.name === name) return n;
    return undefined;
  }

  /** Looks an object up by id within the caller's org; 403 otherwise (missing or not theirs). */
  visible<T extends { orgId: string }>(map: Map<string, T>, id: string, orgId: string): T {
    const obj = map.get(id);
    if (!obj || obj.orgId !== orgId) throw errors.forbidden();
    return obj;
  }

  visibleVm(id: string, orgId: string): Vm {
    const vm = this.vms.get(id);
    if (!vm || this.vmOrgId(vm) !== orgId) throw errors.forbidden();
    return vm;
  }

  /** The named disks attached to a VM. */
  disksOf(vmId: string): NamedDisk[] {
    return [...this.disks.values()].filter((d) => d.attachedVmId === vmId);
  }

  visibleTemplateVm(id: string, orgId: string): VAppTemplate {
    const t = this.templateVm(id);
    if (!t || t.orgId !== orgId) throw errors.forbidden();
    return t;
  }

  visibleStorageProfile(id: string, orgId: string): StorageProfile {
    const sp = this.storageProfiles.get(id);
    const vdc = sp && this.vdcs.get(sp.vdcId);
    if (!sp || !vdc || vdc.orgId !== orgId) throw errors.forbidden();
    return sp;
  }

  /** The VDC's default storage profile (every VDC has one). */
  defaultStorageProfileId(vdc: Vdc): string {
    return vdc.storageProfileIds.find((id) => this.storageProfiles.get(id)?.isDefault)!;
  }

  /**
   * The storage profile `id` names for a new object of `vdc`. One that is not the VDC's is refused
   * with `refuse(sp)`: `sp` is the profile when another VDC of the same org has it, undefined when
   * it is missing or another org's (callers answer the two as VCD does for their object).
   */
  vdcStorageProfileId(
    vdc: Vdc,
    id: string | undefined,
    refuse: (sameOrg: StorageProfile | undefined) => VcdError,
  ): string {
    const sp = id ? this.storageProfiles.get(id) : undefined;
    if (sp?.vdcId === vdc.id) return sp.id;
    throw refuse(sp && this.vdcs.get(sp.vdcId)?.orgId === vdc.orgId ? sp : undefined);
  }

  /** Compute policies published to at least one VDC of the org. */
  orgComputePolicies(orgId: string): ComputePolicy[] {
    return [...this.computePolicies.values()].filter((p) =>
      p.vdcIds.some((v) => this.vdcs.get(v)?.orgId === orgId),
    );
  }

  /** The VM that holds an address on some network, if any. */
  vmHoldingIp(ip: string): Vm | undefined {
    for (const n of this.networks.values()) {
      const vmId = n.allocated.get(ip);
      if (vmId) return this.vms.get(vmId);
    }
    return undefined;
  }
}

/** Whether a VDC offers the network: its own, or one of a data center group it is a member of. */
export const availableIn = (n: Network, vdcId: string): boolean =>
  n.vdcId === vdcId || (n.group?.vdcIds.includes(vdcId) ?? false);
