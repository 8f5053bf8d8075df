/**
 * capvcd's conformance scenario, from its documented behaviour (CAPVCD's contract, our README):
 * one VM per VCDMachine, created once whatever crashes between the create and the status that
 * records it; the cluster's load balancer made once; deleting a machine or the cluster deletes
 * its VMs, vApp and load balancer, and every delete completes. The provider is wired by
 * `addCapvcd`, as its main wires it, with vcdsim behind it (./capvcd-world.ts).
 */
import {
  addCapvcd,
  type CapvcdOptions,
  ClusterType,
  IPAddressClaimType,
  MachineType,
  VCDClusterIdentityType,
  VCDClusterType,
  VCDMachineType,
} from '@capstan/capvcd';
import type { Clock, Manager } from '@capstan/runtime';
import { Secret } from '@capstan/runtime/client';
import type { ConformanceScenario, FakeCluster, WorldCheck } from '@capstan/runtime/testing';
import {
  CLUSTER,
  capiStep,
  createCluster,
  createMachine,
  inProcess,
  NAMESPACE,
  sim,
  startSim,
} from './capvcd-world.js';

/** Which provider to run: `addCapvcd` as main calls it, or a broken copy for a mutation check. */
export type CapvcdWiring = (manager: Manager, options: CapvcdOptions, extras: { clock: Clock }) => unknown;

const world = () => sim().inspect.world;

/** Never more VMs than VCDMachines, never two VMs of one name; never two load balancers for the cluster. */
const invariants: Record<string, WorldCheck> = {
  'one VM per VCDMachine': (cluster) => {
    const machines = cluster.objects(VCDMachineType).length;
    const vms = [...world().vms.values()];
    const names = new Set(vms.map((v) => v.name));
    if (names.size < vms.length) return `two VMs of one name: ${vms.map((v) => v.name).join(', ')}`;
    return vms.length <= machines || `${vms.length} VMs for ${machines} VCDMachines`;
  },
  'one load balancer per cluster': () =>
    world().virtualServices.size <= 1 || `${world().virtualServices.size} virtual services`,
};

/** Every VCDMachine provisioned on its own VM, the cluster provisioned, no VM without a machine. */
const converged: WorldCheck = (cluster: FakeCluster) => {
  const infra = cluster.getObject(VCDClusterType, { namespace: NAMESPACE, name: CLUSTER });
  if (infra?.status?.initialization?.provisioned !== true) return 'the VCDCluster is not provisioned';
  const machines = cluster.objects(VCDMachineType);
  const ids = new Set([...world().vms.values()].map((v) => `urn:vcloud:vm:${v.id}`));
  for (const m of machines) {
    if (m.status?.initialization?.provisioned !== true)
      return `VCDMachine ${m.metadata.name} is not provisioned`;
    const id = m.spec.providerID?.replace(/^vmware-cloud-director:\/\//, '');
    if (!id || !ids.has(id)) return `VCDMachine ${m.metadata.name} has no VM (${m.spec.providerID})`;
  }
  return world().vms.size === machines.length || `${world().vms.size} VMs for ${machines.length} machines`;
};

/** After the cluster is deleted: no VM, vApp or load balancer left in VCD. */
const released: WorldCheck = () => {
  const w = world();
  const left = {
    VMs: w.vms.size,
    vApps: w.vapps.size,
    'virtual services': w.virtualServices.size,
    pools: w.pools.size,
  };
  const named = Object.entries(left).filter(([, n]) => n > 0);
  return named.length === 0 || `left in VCD: ${named.map(([what, n]) => `${n} ${what}`).join(', ')}`;
};

/** Timings scaled down as vcdsim's tasks are (as the e2e harness runs the provider). */
export const PROVIDER_OPTIONS: CapvcdOptions = {
  vcdTransport: inProcess,
  vcdQps: 1_000_000,
  vcdBurst: 1_000_000,
  taskPolling: { minMs: 200, maxMs: 1_000 },
  recheckMs: 500,
  vcdErrorBackoff: { initialMs: 200, maxMs: 2_000 },
};

/** A cluster with a control-plane machine, a worker added then removed, the cluster deleted. */
export function capvcdScenario(wiring: CapvcdWiring = addCapvcd): ConformanceScenario {
  return {
    name: 'capvcd: a cluster on vcdsim',
    kinds: [
      ClusterType,
      MachineType,
      VCDClusterType,
      VCDMachineType,
      VCDClusterIdentityType,
      IPAddressClaimType,
      Secret,
    ],
    manager: { fieldManager: 'capstan-capvcd' },
    setup: (manager, { clock }) => {
      wiring(manager, PROVIDER_OPTIONS, { clock });
    },
    world: async (user) => {
      await startSim(user);
      return undefined;
    },
    tick: async (user) => {
      await capiStep(user);
      return undefined;
    },
    actions: [
      {
        name: `create cluster ${CLUSTER} with control-plane machine cp-0`,
        run: async (user) => {
          await createCluster(user);
          await createMachine(user, 'cp-0', true);
          return undefined;
        },
      },
      {
        name: 'add worker w-0',
        run: async (user) => {
          await createMachine(user, 'w-0', false);
          return undefined;
        },
      },
      {
        name: 'delete worker w-0',
        run: ({ client }) => client.delete(MachineType, { namespace: NAMESPACE, name: 'w-0' }),
      },
    ],
    converged,
    invariants,
    teardown: {
      // As Cluster API deletes a cluster (the Cluster waits, on its finalizer): its machines, then
      // its infrastructure cluster.
      name: `delete cluster ${CLUSTER}`,
      run: async ({ client }) => {
        await client.delete(MachineType, { namespace: NAMESPACE, name: 'cp-0' });
        await client.delete(VCDClusterType, { namespace: NAMESPACE, name: CLUSTER });
        return undefined;
      },
    },
    released,
    stepMs: 5_000,
    settleMs: 5 * 60_000,
  };
}
