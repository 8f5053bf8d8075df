/** The control plane as the load balancer sees it: the members its pool should have. */
import type { Client } from '@capstan/runtime';
import { MachineType } from '../api/capi.js';
import { CLUSTER_NAME_LABEL, CONTROL_PLANE_LABEL } from '../api/keys.js';
import type { VCDMachine } from '../api/types.js';

/**
 * IPs of the cluster's provisioned control-plane machines not being deleted (a machine going
 * away leaves the pool first; its VM powers off only once it has), and whether one that was
 * provisioned before (it has a providerID) has not reported again yet (its status was lost, as
 * in a move).
 */
export async function controlPlaneMembers(
  client: Client,
  namespace: string,
  clusterName: string,
  vcdMachines: VCDMachine[],
) {
  const cps = await client.list(MachineType, {
    namespace,
    labelSelector: `${CLUSTER_NAME_LABEL}=${clusterName},${CONTROL_PLANE_LABEL}`,
  });
  const names = new Set(cps.items.map((m) => m.spec?.infrastructureRef?.name));
  const leaving = new Set(
    cps.items.filter((m) => m.metadata.deletionTimestamp).map((m) => m.spec?.infrastructureRef?.name),
  );
  const ours = vcdMachines.filter((m) => names.has(m.metadata.name));
  const ips = ours
    .filter(
      (m) =>
        m.status?.initialization?.provisioned &&
        !m.metadata.deletionTimestamp &&
        !leaving.has(m.metadata.name),
    )
    .flatMap((m) => m.status?.addresses?.filter((a) => a.type === 'InternalIP').map((a) => a.address) ?? []);
  const unsettled = ours.some(
    (m) => m.spec.providerID && !m.status?.initialization?.provisioned && !m.metadata.deletionTimestamp,
  );
  return { ips, unsettled };
}
