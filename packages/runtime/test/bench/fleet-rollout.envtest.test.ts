/**
 * The fleet the rollout row runs, small: 50 kwok nodes in three reboot groups (control plane
 * first), a Deployment bound by a PodDisruptionBudget on them, the coordinator (in this process)
 * and the fleet agent, which plays the agent for every node with the agent's own reconciler and
 * reboots through envtest's `rebootNode`. Every node reboots once, groups in order, and no group
 * ever has more nodes in flight than its budget.
 */

import { fileURLToPath } from 'node:url';
import { addCoordinator } from '@capstan/coordinator';
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { Manager } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FLEET_LABEL,
  FleetObserver,
  fleetLayout,
  pdbWorkload,
  rebootGroups,
  startFleetAgent,
} from '../../bench/fleet.js';

const env = useOwnControlPlane(
  { controllerManager: true, scheduler: true, kwok: true, nodeLeaseSeconds: 120 },
  'fleet',
);
const layout = fleetLayout('fleet50', 50, 3, ['20%', '25%']);
const REBOOT_MS = 300;
const coordinatorCrds = fileURLToPath(
  new URL('../../../coordinator/deploy/crds/rebootgroups.yaml', import.meta.url),
);
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  await env.plane.installCRDs([coordinatorCrds]);
  await env.plane.addNodes(layout.specs, 120_000);
  await env.plane.createObjects(rebootGroups(layout) as never);
  await pdbWorkload(env.plane, env.namespace, layout, 20);
});

afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

function startCoordinator(): void {
  const manager = Manager.create({
    kubeConfig: env.kubeConfig,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logLevel: 'silent',
    eventSource: 'reboot.capstan.dev/coordinator',
  });
  addCoordinator(manager, {
    namespace: env.namespace,
    nodeSelector: `${FLEET_LABEL}=${layout.name}`,
    resyncPeriodMs: 2_000,
  });
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  stops.push(async () => {
    abort.abort();
    await done;
  });
}

describe('a fleet of 50 kwok nodes, the coordinator and the fleet agent', () => {
  it('reboots every node once, groups in order, never over a group budget', async () => {
    const transport = new HttpTransport(env.kubeConfig);
    const observer = new FleetObserver(transport, layout);
    await observer.start();
    stops.push(async () => {
      await observer.stop();
      transport.close();
    });
    startCoordinator();
    const fleet = startFleetAgent(env.plane, layout, REBOOT_MS);
    stops.push(fleet.stop);
    fleet.agent.setRebootNeeded(
      layout.specs.map((s) => s.name),
      true,
    );
    await observer.rolledOut();
    await fleet.agent.settle();

    expect(fleet.agent.counts).toMatchObject({ rebootsAsked: 50, rebootsDone: 50, rebooting: 0 });
    for (const group of layout.groups) {
      const most = observer.most.get(group.name) ?? 0;
      expect(most, group.name).toBeGreaterThanOrEqual(1);
      expect(most, group.name).toBeLessThanOrEqual(group.budget);
    }
    // Each group starts only once the one before it is done.
    for (let g = 1; g < layout.groups.length; g++) {
      const before = layout.groups[g - 1]?.name as string;
      const after = layout.groups[g]?.name as string;
      expect(observer.firstIn.get(after) ?? 0).toBeGreaterThanOrEqual(
        observer.lastOut.get(before) ?? Infinity,
      );
    }
  }, 600_000);
});
