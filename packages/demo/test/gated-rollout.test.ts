/**
 * Issue 44's gates on a real rollout: kwok nodes, each with the real agent as a child process (the
 * fault suite's machines), the built coordinator as two replicas under its shipped RBAC plus the
 * gate access example, and a real Prometheus whose alert the test fires and clears. The Prometheus
 * gate holds both nodes of its group while the alert fires (no reboot), and once it clears they
 * reboot onto the new version one at a time; the alert firing again while the first settles keeps
 * its slot (checked before the release) until it clears. A CEL condition over a custom object (read through the
 * aggregated gate ClusterRole) holds its node until the object says healthy. A condition over a
 * kind no role grants blocks with the API server's "forbidden" in the group's queue until a
 * labelled ClusterRole grants it. The Prometheus group's HTTPS webhook is told each node's cycle
 * (nothing granted while the alert fires). From a watch on every Node: no group over its budget.
 */
import { RebootGroupType } from '@capstan/coordinator';
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { defineResource, type KubeObject } from '@capstan/runtime';
import { ClusterRole } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatedFleet, startGatedFleet, TEST_GROUP, TO_VERSION } from './faults/gated-fleet.js';

const VERSION_LABEL = capstanProtocol.labels.version;
const Probe = defineResource<KubeObject & { spec?: { health?: string } }>({
  ...{ group: TEST_GROUP, version: 'v1', kind: 'Probe', plural: 'probes', namespaced: false },
});
const Vault = defineResource<KubeObject & { spec?: { health?: string } }>({
  ...{ group: TEST_GROUP, version: 'v1', kind: 'Vault', plural: 'vaults', namespaced: false },
});
/** A ClusterRole the gate access example's aggregated role picks up (its label). */
const gateRole = (resource: string) => ({
  metadata: {
    name: `capstan-coordinator-gates-${resource}`,
    labels: { 'reboot.capstan.dev/aggregate-to-coordinator-gates': 'true' },
  },
  rules: [{ apiGroups: [TEST_GROUP], resources: [resource], verbs: ['get', 'list', 'watch'] }],
});
const condition = (kind: string) => ({
  ...{ apiVersion: `${TEST_GROUP}/v1`, kind, name: 'storage' },
  expression: "object.spec.health == 'OK'",
});
const CYCLE = ['Scheduled', 'Granted', 'Rebooted', 'Verified'];
let fleet: GatedFleet;
/** The notifications the prom group's webhook received (JSON bodies). */
const events = (): Array<{ node: string; event: string; group: string }> => fleet.webhook.bodies;

beforeAll(async () => {
  fleet = await startGatedFleet(
    (urls) => [
      {
        name: 'prom',
        nodes: ['prom-1', 'prom-2'],
        gates: { prometheus: { url: urls.prometheus, alerts: { firingOnly: true } } },
        notifications: { webhooks: [{ url: urls.webhook }] },
        settleTime: '8s',
      },
      { name: 'cel', nodes: ['cel-1'], gates: { conditions: [condition('Probe')] } },
      { name: 'denied', nodes: ['denied-1'], gates: { conditions: [condition('Vault')] } },
    ],
    1_000,
  );
  await fleet.admin.create(Probe, { metadata: { name: 'storage' }, spec: { health: 'WARN' } });
  await fleet.admin.create(Vault, { metadata: { name: 'storage' }, spec: { health: 'OK' } });
  // What a user adds beside the gate access example: the Probe kind, aggregated into the
  // coordinator's gate role (get, list and watch: the coordinator reads it through an informer).
  await fleet.admin.create(ClusterRole, gateRole('probes'));
}, 600_000);
afterAll(() => fleet?.stop(), 120_000);

/** The run's state, for a failure message. */
function details(): string {
  const nodes = [...fleet.machines.values()].map((m) => {
    const n = fleet.ledger.node(m.name);
    return `${m.name}: boots ${m.bootIDs.length}, reboot requests ${m.rebootRequests}, agent ${m.agentRunning ? 'up' : 'down'}, version ${n?.metadata.labels?.[VERSION_LABEL]}`;
  });
  return [
    ...fleet.faults,
    ...fleet.ledger.violations,
    ...nodes,
    fleet.coordinators.describe(),
    `logs: ${fleet.logDir}`,
  ].join('\n');
}

const waitFor = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 90_000) =>
  eventually(
    async () => {
      if (fleet.faults.length > 0) throw new Error(`simulation fault: ${fleet.faults[0]}`);
      return probe();
    },
    { what, timeoutMs, intervalMs: 250, details },
  );
const queue = async (group: string) =>
  (await fleet.admin.get(RebootGroupType, { name: group })).status?.queue ?? [];
const updated = (node: string) =>
  fleet.machines.get(node)?.bootIDs.length === 2 &&
  fleet.ledger.node(node)?.metadata.labels?.[VERSION_LABEL] === TO_VERSION;
const rebooted = (node: string) => (fleet.machines.get(node)?.rebootRequests ?? 0) > 0;

const annotation = (node: string, key: string) => fleet.ledger.node(node)?.metadata.annotations?.[key];
/** Whether Prometheus has the test's alert firing. */
async function firing(): Promise<boolean> {
  const answer = (await (await fetch(`${fleet.prometheus.url}/api/v1/alerts`)).json()) as {
    data: { alerts: Array<{ state: string }> };
  };
  return answer.data.alerts.some((a) => a.state === 'firing');
}

/** Holds for `ms`, sampled every 250 ms. */
async function holds(what: string, ms: number, check: () => boolean): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    expect(check(), `${what}\n${details()}`).toBe(true);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('a rollout on kwok nodes with real agents, gated', () => {
  it('a firing alert, an unhealthy object and an unreadable kind each hold their nodes; as each gate opens its nodes reboot, one at a time', async () => {
    await waitFor('the alert fires', firing);
    fleet.ledger.arm();
    for (const m of fleet.machines.values()) m.stageUpdate(TO_VERSION);
    // Every agent asks; every gate holds its group's nodes, each saying why.
    await waitFor('every node queued behind its gate', async () => {
      const [prom, cel, denied] = await Promise.all(['prom', 'cel', 'denied'].map(queue));
      return (
        prom?.length === 2 &&
        prom.every((e) => e.reason === 'GateClosed' && /TestUnhealthy/.test(e.message ?? '')) &&
        cel?.[0]?.reason === 'GateClosed' &&
        denied?.[0]?.reason === 'GateFailed' &&
        /forbidden/i.test(denied[0].message ?? '')
      );
    });
    await holds('no node is rebooted while its gate holds', 4_000, () =>
      [...fleet.machines.keys()].every((n) => !rebooted(n)),
    );
    expect(
      events().filter((b) => b.event === 'Granted'),
      details(),
    ).toEqual([]);

    fleet.unhealthy.value = 0;
    // The first node back settles; the alert fires again: checked before its release, the gate
    // keeps its slot (not released, the other node not granted) until the alert clears.
    const first = await waitFor('a prom node back and settling', async () =>
      ['prom-1', 'prom-2'].find((n) => annotation(n, coordinatorKeys.settlingSince) !== undefined),
    );
    const second = first === 'prom-1' ? 'prom-2' : 'prom-1';
    fleet.unhealthy.value = 1;
    await waitFor('the alert fires again', firing);
    await holds(
      `${first} keeps its slot while the alert fires`,
      10_000,
      () =>
        annotation(first, coordinatorKeys.rebootedAt) === undefined &&
        annotation(first, coordinatorKeys.grantedAt) !== undefined &&
        !rebooted(second),
    );
    fleet.unhealthy.value = 0;
    await waitFor(
      'prom-1 and prom-2 updated once the alert clears',
      async () => updated('prom-1') && updated('prom-2'),
    );
    expect(fleet.ledger.mostDisrupted('prom'), details()).toBe(1);
    // The group's webhook was told each node's cycle in order, one node granted at a time.
    await waitFor('both prom nodes Verified, told to the webhook', async () =>
      ['prom-1', 'prom-2'].every((n) => events().some((b) => b.node === n && b.event === 'Verified')),
    );
    for (const n of ['prom-1', 'prom-2'])
      expect(
        events()
          .filter((b) => b.node === n)
          .map((b) => b.event),
      ).toEqual(CYCLE);
    expect(
      events()
        .filter((b) => b.event === 'Granted' || b.event === 'Verified')
        .map((b) => b.event),
    ).toEqual(['Granted', 'Verified', 'Granted', 'Verified']);
    expect(rebooted('cel-1') || rebooted('denied-1'), details()).toBe(false);

    await fleet.admin.patch(Probe, { name: 'storage' }, 'merge', { spec: { health: 'OK' } });
    await waitFor('cel-1 updated once its object is healthy', async () => updated('cel-1'));
    expect(rebooted('denied-1'), details()).toBe(false);
    expect((await queue('denied'))[0]?.reason).toBe('GateFailed');

    await fleet.admin.create(ClusterRole, gateRole('vaults'));
    await waitFor('denied-1 updated once a role grants its kind', async () => updated('denied-1'));
    for (const m of fleet.machines.values()) expect(m.rebootRequests, details()).toBe(1);
    expect(fleet.ledger.violations).toEqual([]);
  }, 600_000);
});
