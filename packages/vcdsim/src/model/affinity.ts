/** A VM affinity or anti-affinity rule of a VDC (which hosts the VMs named may share). */
export interface VmAffinityRule {
  id: string;
  name: string;
  vdcId: string;
  orgId: string;
  enabled: boolean;
  mandatory: boolean;
  polarity: 'Affinity' | 'Anti-Affinity';
  vmIds: string[];
}
