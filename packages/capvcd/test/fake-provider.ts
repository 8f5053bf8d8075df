/**
 * capvcd over the fake cluster on a virtual clock, as main wires it (`addCapvcd`), vcdsim served
 * in-process: a cluster of a control plane and `workers` workers, with counts of the API requests
 * a test looks at (GETs of the credentials Secret, VCDMachine status patches).
 */
import {
  addCapvcd,
  ClusterType,
  IPAddressClaimType,
  MachineType,
  VCDClusterIdentityType,
  VCDClusterType,
  VCDMachineType,
} from '@capstan/capvcd';
import { Client, Manager } from '@capstan/runtime';
import { Event, Secret } from '@capstan/runtime/client';
import { type ConformanceUser, FakeCluster, ManualClock } from '@capstan/runtime/testing';
import { PROVIDER_OPTIONS } from './capvcd-scenario.js';
import { CLUSTER, capiStep, createCluster, createMachine, sim, startSim } from './capvcd-world.js';

/** The credentials Secret `createCluster` makes. */
export const CREDENTIALS = `${CLUSTER}-vcd`;

/** The world as a test drives it. */
export type User = ConformanceUser & { clock: ManualClock; cluster: FakeCluster };

/** A running provider and what it sent. */
export interface FakeProvider {
  user: User;
  /** GETs of the credentials Secret the API server answered. */
  secretGets: () => number;
  /** VCDMachine status patches, by machine. */
  statusPatches: Map<string, number>;
  stop: () => Promise<void>;
}

/** A manager over the fake cluster, on its clock, as capvcd's (no servers, no logs). */
export function fakeManager(cluster: FakeCluster, clock: ManualClock): Manager {
  return Manager.create({
    transport: cluster,
    clock,
    logLevel: 'silent',
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    fieldManager: 'capstan-capvcd',
  });
}

/** Starts the world and the provider (stop it with `stop`). */
export async function startFakeProvider(workers: number): Promise<FakeProvider> {
  const clock = new ManualClock();
  const kinds = [ClusterType, MachineType, VCDClusterType, VCDMachineType, VCDClusterIdentityType];
  const cluster = new FakeCluster({ clock, kinds: [...kinds, IPAddressClaimType, Secret, Event] });
  const user: User = { cluster, clock, client: new Client(cluster), killController: () => {} };
  let gets = 0;
  const statusPatches = new Map<string, number>();
  cluster.addFault((r) => {
    const name = r.key?.name ?? '';
    if (r.verb === 'get' && r.type.plural === 'secrets' && name === CREDENTIALS) gets++;
    const subresource = (r.options as { subresource?: string } | undefined)?.subresource;
    if (r.verb === 'patch' && r.type.plural === 'vcdmachines' && subresource === 'status')
      statusPatches.set(name, (statusPatches.get(name) ?? 0) + 1);
    return undefined;
  });
  await startSim(user);
  await createCluster(user);
  await createMachine(user, 'cp-0', true);
  for (let i = 0; i < workers; i++) await createMachine(user, `md-${i}`, false);
  const manager = fakeManager(cluster, clock);
  addCapvcd(manager, PROVIDER_OPTIONS);
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  const stop = async () => {
    abort.abort();
    await clock.advanceUntilSettled(done);
    await sim().stop();
  };
  return { user, secretGets: () => gets, statusPatches, stop };
}

/** Runs the provider (and Cluster API's part) in steps of 10 ms until `done` holds. */
export async function runUntil(user: User, done: () => boolean, what: string): Promise<void> {
  for (let t = 0; !done(); t += 10) {
    if (t > 120_000) throw new Error(`${what} did not hold within 120 s of virtual time`);
    await user.clock.advanceAsync(10);
    await capiStep(user);
  }
}

/** Every VCDMachine provisioned. */
export const provisioned = (user: User) =>
  user.cluster.objects(VCDMachineType).every((m) => m.status?.initialization?.provisioned === true);
