/**
 * How the cluster's machines are seen by the anti-affinity decision: the group from the Machine's
 * labels (control plane, MachineDeployment, neither), the VDC from the failure domain, the VM from
 * the providerID (none once drift found it gone), leaving when either object is deleted.
 */
import { describe, expect, it } from 'vitest';
import type { Machine } from '../src/api/capi.js';
import { DEPLOYMENT_NAME_LABEL } from '../src/api/keys.js';
import type { VCDCluster, VCDMachine } from '../src/api/types.js';
import { affinityMachines } from '../src/cluster/affinity.js';

const vcdCluster = {
  metadata: { name: 'c1', namespace: 'ns' },
  spec: {
    site: 'https://vcd.example.com',
    org: 'o',
    ovdc: 'vdc-a',
    ovdcNetwork: 'net-a',
    userContext: { secretRef: { name: 's' } },
    multiZoneSpec: { zones: [{ name: 'z2', ovdc: 'vdc-b', ovdcNetworkName: 'net-b' }] },
  },
} as VCDCluster;

const uuid = (n: number) => `00000000-0000-0000-0000-00000000000${n}`;

function pair(
  n: number,
  labels: Record<string, string>,
  extras: { failureDomain?: string; deleting?: boolean; gone?: boolean } = {},
): { machine: Machine; vcdMachine: VCDMachine } {
  const name = `m${n}`;
  return {
    machine: {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: { name, namespace: 'ns', labels, ...(extras.deleting ? { deletionTimestamp: 'now' } : {}) },
      spec: {
        clusterName: 'c1',
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'VCDMachine', name },
        ...(extras.failureDomain ? { failureDomain: extras.failureDomain } : {}),
      },
    } as Machine,
    vcdMachine: {
      metadata: { name, namespace: 'ns' },
      spec: {
        catalog: 'c',
        template: 't',
        providerID: `vmware-cloud-director://urn:vcloud:vm:${uuid(n)}`,
      },
      status: extras.gone
        ? {
            conditions: [
              {
                type: 'VMProvisioned',
                status: 'False',
                reason: 'VMNotFound',
                message: 'gone',
                lastTransitionTime: '2026-01-01T00:00:00Z',
              },
            ],
          }
        : {},
    } as VCDMachine,
  };
}

describe('affinityMachines', () => {
  it('groups by the Machine’s labels, places by failure domain, drops a gone VM, marks leaving', () => {
    const pairs = [
      pair(1, { 'cluster.x-k8s.io/control-plane': '' }),
      pair(2, { [DEPLOYMENT_NAME_LABEL]: 'md-0' }, { failureDomain: 'z2' }),
      pair(3, {}),
      pair(4, { [DEPLOYMENT_NAME_LABEL]: 'md-0' }, { deleting: true }),
      pair(5, { 'cluster.x-k8s.io/control-plane': '' }, { gone: true }),
      pair(6, { [DEPLOYMENT_NAME_LABEL]: 'md-0' }, { failureDomain: 'no-such-zone' }),
    ];
    const seen = affinityMachines(
      vcdCluster,
      pairs.map((p) => p.machine),
      pairs.map((p) => p.vcdMachine),
    );
    expect(seen).toEqual([
      { group: { controlPlane: true }, ovdc: 'vdc-a', vm: `urn:vcloud:vm:${uuid(1)}`, leaving: false },
      { group: { machineDeployment: 'md-0' }, ovdc: 'vdc-b', vm: `urn:vcloud:vm:${uuid(2)}`, leaving: false },
      { ovdc: 'vdc-a', vm: `urn:vcloud:vm:${uuid(3)}`, leaving: false },
      { group: { machineDeployment: 'md-0' }, ovdc: 'vdc-a', vm: `urn:vcloud:vm:${uuid(4)}`, leaving: true },
      { group: { controlPlane: true }, ovdc: 'vdc-a', leaving: false },
    ]);
  });
});
