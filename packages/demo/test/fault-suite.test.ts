/**
 * The fault suite (issue 14): the demo's 12-node rollout on envtest with kube-scheduler and kwok,
 * while the apiserver restarts twice, one node's writes are refused by an admission policy, an
 * agent is killed (SIGKILL) mid-drain and another mid-reboot (then started afresh, as a DaemonSet
 * does), and the coordinator leader (one of two replicas of the built main) is SIGKILLed. After
 * every step: no group above its budget, no node rebooted twice for one grant (from a watch on
 * every Node). At the end every other node rebooted exactly once onto the new version, and the
 * refused node is surfaced as failed (its group's Degraded condition, an event) and never rebooted.
 * The groups also carry a blockingPods gate, a settle time and `onFailure: SetAside`: a node running
 * a blocking pod waits `BlockingPods` (never granted) until the pod is gone, then reboots too.
 * The counts are printed for the closing note.
 */

import { RebootGroupType } from '@capstan/coordinator';
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Deployment, Event, Pod, PodDisruptionBudget } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKLOAD_NAMESPACE, workloadProblems } from '../src/workloads.js';
import { BLOCKS_REBOOT, type Fleet, FROM_VERSION, startFleet, TO_VERSION } from './faults/fleet.js';

const A = capstanProtocol.annotations;
const VERSION_LABEL = capstanProtocol.labels.version;
const REFUSED = 'worker-9';
const MID_REBOOT = 'control-plane-2';
const MID_DRAIN = 'worker-1';
/** Runs a pod the groups' blockingPods gate matches until the rest of the rollout is over. */
const BLOCKED = 'worker-6';
let fleet: Fleet;
const started = Date.now();
let apiServerRestarts = 0;
let agentKills = 0;

beforeAll(async () => {
  fleet = await startFleet({ refused: REFUSED, rebootDownMs: 2_000 });
}, 600_000);
afterAll(async () => {
  await fleet?.stop();
}, 120_000);

const seconds = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;

/** What the run looked like, for a failure message. */
function details(): string {
  const nodes = [...fleet.machines.values()].map((m) => {
    const n = fleet.ledger.node(m.name);
    const a = n?.metadata.annotations ?? {};
    return `${m.name}: boots ${m.bootIDs.length}, reboot requests ${m.rebootRequests}, agent ${m.agentRunning ? 'up' : 'down'}, needed ${a[A.rebootNeeded]}, ok ${a[A.rebootOk]}, in-progress ${a[A.rebootInProgress]}, cordoned ${n?.spec?.unschedulable === true}, version ${n?.metadata.labels?.[VERSION_LABEL]}`;
  });
  return [
    ...fleet.faults,
    ...fleet.ledger.violations,
    ...nodes,
    fleet.coordinators.describe(),
    `logs: ${fleet.logDir}`,
  ].join('\n');
}

/** Waits for `probe`, failing early on a simulation fault; the run's state on timeout. */
function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 180_000,
) {
  return eventually(
    async () => {
      if (fleet.faults.length > 0) throw new Error(`simulation fault: ${fleet.faults[0]}`);
      return probe();
    },
    { what, timeoutMs, intervalMs: 200, details },
  );
}

/** The invariants, after every step: no group over budget, no reboot without its own grant. */
function step(name: string): void {
  const most = fleet.groups
    .map((g) => `${g.name} ${fleet.ledger.mostDisrupted(g.name)}/${g.budget}`)
    .join(', ');
  console.log(`[fault-suite ${seconds()}] ${name}; most disrupted: ${most}`);
  expect(fleet.ledger.violations, details()).toEqual([]);
  for (const g of fleet.groups) expect(fleet.ledger.mostDisrupted(g.name)).toBeLessThanOrEqual(g.budget);
}

const annotation = (node: string, key: string) => fleet.ledger.node(node)?.metadata.annotations?.[key];

async function restartApiServer(why: string): Promise<void> {
  await fleet.gate.exclusive(() => fleet.plane.restartApiServer());
  apiServerRestarts += 1;
  step(`apiserver restarted (${why})`);
}

describe('the fault suite', () => {
  it('rolls the fleet out through restarts, kills and a refused node: within budget, one reboot per grant', async () => {
    // A pod on the mid-drain node that no eviction may move (PDB minAvailable 1): its drain stalls.
    const labels = { app: 'sticky' };
    await fleet.admin.create(Deployment, {
      metadata: { name: 'sticky', namespace: WORKLOAD_NAMESPACE },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            nodeSelector: { 'kubernetes.io/hostname': MID_DRAIN },
            containers: [{ name: 'app', image: 'registry.invalid/sticky:1' }],
          },
        },
      },
    });
    await fleet.admin.create(PodDisruptionBudget, {
      metadata: { name: 'sticky', namespace: WORKLOAD_NAMESPACE },
      spec: { minAvailable: 1, selector: { matchLabels: labels } },
    });
    // A pod the gate matches pins BLOCKED in the queue.
    await fleet.admin.create(Pod, {
      metadata: { name: 'blocker', namespace: WORKLOAD_NAMESPACE, labels: { [BLOCKS_REBOOT]: 'true' } },
      spec: {
        nodeSelector: { 'kubernetes.io/hostname': BLOCKED },
        containers: [{ name: 'app', image: 'registry.invalid/blocker:1' }],
      },
    });
    const nodeCount = fleet.machines.size;
    await waitFor(
      'every workload pod to run',
      async () => (await workloadProblems(fleet.admin, fleet.workloads, nodeCount)).length === 0,
    );
    await waitFor('the sticky pod to run', async () => {
      const pods = await fleet.admin.list(Pod, {
        namespace: WORKLOAD_NAMESPACE,
        labelSelector: 'app=sticky',
      });
      return pods.items.some((p) => p.status?.phase === 'Running');
    });
    await waitFor('the blocking pod to run', async () => {
      const pod = await fleet.admin.get(Pod, { namespace: WORKLOAD_NAMESPACE, name: 'blocker' });
      return pod.status?.phase === 'Running';
    });
    await waitFor('every agent to report its node', () =>
      [...fleet.machines.keys()].every(
        (n) => fleet.ledger.node(n)?.metadata.labels?.[VERSION_LABEL] === FROM_VERSION,
      ),
    );
    fleet.ledger.arm();
    step('fleet up: 12 nodes reported, workloads running');

    const midReboot = fleet.machines.get(MID_REBOOT);
    const midDrain = fleet.machines.get(MID_DRAIN);
    if (!midReboot || !midDrain) throw new Error('the fleet lacks its fault nodes');
    midReboot.shutdownMs = 5_000;
    const midRebootRequested = midReboot.rebootRequested();
    for (const m of fleet.machines.values()) m.stageUpdate(TO_VERSION);
    step(`update to ${TO_VERSION} staged on every node`);

    await waitFor('control-plane-1 granted', () => annotation('control-plane-1', A.rebootOk) === 'true');
    await restartApiServer('control-plane-1 granted');

    await waitFor(
      `${MID_REBOOT} to ask logind to reboot`,
      () => midRebootRequested.then(() => true),
      300_000,
    );
    await midReboot.killAgent();
    agentKills += 1;
    step(`agent on ${MID_REBOOT} killed after logind's Reboot, before the node went down`);
    midReboot.startAgent();
    step(`fresh agent started on ${MID_REBOOT} while it shuts down`);
    await waitFor(`${MID_REBOOT} back up`, () => fleet.ledger.reboots(MID_REBOOT) === 1);
    step(`${MID_REBOOT} rebooted once`);

    await waitFor(
      `${MID_DRAIN} draining, stalled on the sticky pod`,
      () =>
        annotation(MID_DRAIN, A.rebootInProgress) === 'true' &&
        fleet.ledger.node(MID_DRAIN)?.spec?.unschedulable === true &&
        midDrain.agentLog.some((l) => l.includes('evict')),
      300_000,
    );
    await midDrain.killAgent();
    agentKills += 1;
    step(`agent on ${MID_DRAIN} killed mid-drain`);

    const leader = await waitFor('a coordinator leader', () => fleet.coordinators.leader(fleet.admin));
    const killedHolder = await fleet.coordinators.holder(fleet.admin);
    await fleet.coordinators.kill(leader);
    step(`coordinator leader ${leader} killed`);
    // The sticky PDB stays until after the second restart: it keeps a worker in flight through
    // it, whatever pace the rest of the rollout keeps (on a quiet machine it may be over by then).
    midDrain.startAgent();
    step(`fresh agent started on ${MID_DRAIN}, its drain still held by the sticky pod`);
    // Another process: the other replica, or the killed one's replacement (as a Deployment's new
    // pod may): both wait out the dead leader's lease, and whichever tries first wins it.
    const next = await waitFor('another coordinator process to lead', async () => {
      const holder = await fleet.coordinators.holder(fleet.admin);
      if (holder === undefined || holder === killedHolder) return undefined;
      return fleet.coordinators.leader(fleet.admin);
    });
    step(`coordinator ${next} leads`);

    await waitFor(
      `${MID_DRAIN} still granted and draining`,
      () =>
        annotation(MID_DRAIN, A.rebootOk) === 'true' && annotation(MID_DRAIN, A.rebootInProgress) === 'true',
    );
    await restartApiServer('workers in flight');
    await fleet.admin.delete(PodDisruptionBudget, { namespace: WORKLOAD_NAMESPACE, name: 'sticky' });
    step(`sticky PDB deleted: ${MID_DRAIN}'s drain may finish`);

    const others = [...fleet.machines.values()].filter((m) => m.name !== REFUSED);
    const done = (m: { name: string }) => {
      const n = fleet.ledger.node(m.name);
      return (
        fleet.ledger.reboots(m.name) === 1 &&
        n?.metadata.labels?.[VERSION_LABEL] === TO_VERSION &&
        annotation(m.name, A.rebootOk) !== 'true' &&
        annotation(m.name, A.rebootInProgress) !== 'true' &&
        n.spec?.unschedulable !== true
      );
    };
    await waitFor(
      `every node but ${REFUSED} and ${BLOCKED} rebooted onto ${TO_VERSION}, its grant withdrawn`,
      () => others.filter((m) => m.name !== BLOCKED).every(done),
      600_000,
    );
    step(`rollout finished but for ${BLOCKED}`);
    const blockedEntry = await waitFor(`${BLOCKED} waiting BlockingPods`, async () =>
      (await fleet.admin.get(RebootGroupType, { name: 'workers' })).status?.queue?.find(
        (q) => q.node === BLOCKED && q.reason === 'BlockingPods',
      ),
    );
    expect(blockedEntry.message).toContain(`${WORKLOAD_NAMESPACE}/blocker`);
    expect(fleet.ledger.grants(BLOCKED)).toBe(0);
    expect(fleet.ledger.reboots(BLOCKED)).toBe(0);
    await fleet.admin.delete(Pod, { namespace: WORKLOAD_NAMESPACE, name: 'blocker' });
    step(`blocking pod on ${BLOCKED} deleted`);
    await waitFor(
      `every node but ${REFUSED} rebooted onto ${TO_VERSION}, its grant withdrawn`,
      () => others.every(done),
      600_000,
    );
    step('rollout finished');

    // The refused node: asked, never granted, never rebooted, and reported as failed.
    const workers = await fleet.admin.get(RebootGroupType, { name: 'workers' });
    const degraded = workers.status?.conditions?.find((c) => c.type === 'Degraded');
    expect(degraded, JSON.stringify(workers.status)).toMatchObject({
      status: 'True',
      reason: 'WritesRefused',
    });
    expect(degraded?.message).toContain(REFUSED);
    const events = await waitFor(`a WritesRefused event on ${REFUSED}`, async () => {
      const list = await fleet.admin.list(Event, { fieldSelector: `regarding.name=${REFUSED}` });
      const found = list.items.filter((e) => e.reason === 'WritesRefused');
      return found.length > 0 ? found : undefined;
    });
    expect(events[0]?.type).toBe('Warning');
    expect(annotation(REFUSED, A.rebootNeeded)).toBe('true');
    expect(fleet.ledger.reboots(REFUSED)).toBe(0);
    expect(fleet.ledger.grants(REFUSED)).toBe(0);
    // One refused node is not "cannot serve": every replica stays ready (see the coordinator's README).
    for (const port of fleet.coordinators.probePorts) {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(res.status).toBe(200);
    }

    // Every other node: one boot change, one grant, one shutdown of the machine.
    for (const m of others) {
      expect(fleet.ledger.reboots(m.name), m.name).toBe(1);
      expect(m.bootIDs, m.name).toHaveLength(2);
      expect(m.versions.at(-1), m.name).toBe(TO_VERSION);
    }
    step('final checks');

    const grants = others.reduce((n, m) => n + fleet.ledger.grants(m.name), 0);
    const reboots = others.reduce((n, m) => n + fleet.ledger.reboots(m.name), 0);
    const requests = others.reduce((n, m) => n + m.rebootRequests, 0);
    const agentStarts = [...fleet.machines.values()].reduce((n, m) => n + m.agentStarts, 0);
    const agentCrashes = [...fleet.machines.values()].reduce((n, m) => n + m.agentCrashes, 0);
    const most = fleet.groups.map(
      (g) => `${g.name} ${fleet.ledger.mostDisrupted(g.name)} (budget ${g.budget})`,
    );
    console.log(
      [
        '[fault-suite] counts',
        `  nodes: ${nodeCount}; rebooted once: ${reboots} of ${others.length}; refused node ${REFUSED}: 0 reboots, 0 grants, Degraded=WritesRefused`,
        `  grants: ${grants}; reboots (boot ID changes): ${reboots}; logind reboot requests: ${requests}`,
        `  apiserver restarts: ${apiServerRestarts}; agents killed: ${agentKills}; agent processes started: ${agentStarts} (crashed and restarted: ${agentCrashes})`,
        `  coordinator leaders killed: ${fleet.coordinators.kills}; coordinator starts: ${fleet.coordinators.starts}; unplanned coordinator exits: ${fleet.coordinators.unplannedExits}`,
        `  most disrupted at once: ${most.join(', ')}`,
        `  node watch events: ${fleet.ledger.events}; violations: ${fleet.ledger.violations.length}`,
        `  elapsed: ${seconds()}`,
      ].join('\n'),
    );
    expect(grants).toBe(others.length);
    expect(apiServerRestarts).toBe(2);
    expect(agentKills).toBe(2);
    expect(fleet.coordinators.kills).toBe(1);
  }, 1_500_000);
});
