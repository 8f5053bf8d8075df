/**
 * `spec.antiAffinity` removed while the rule's create task still runs, the endpoint the user's (no
 * load balancer): the task is still looked at until it ends, and the rule it made is deleted. CI
 * once saw this stall: no VCD call after the spec change, the rule left in VCD. Here on a virtual
 * clock: the fake cluster, `addCapvcd` as main wires it, vcdsim served in-process.
 */
import {
  addCapvcd,
  affinityRuleName,
  ClusterType,
  IPAddressClaimType,
  MachineType,
  type VCDCluster,
  VCDClusterIdentityType,
  VCDClusterType,
  VCDMachineType,
  type VcdTransport,
} from '@capstan/capvcd';
import { Client } from '@capstan/runtime';
import { Event, Secret } from '@capstan/runtime/client';
import { type ConformanceUser, FakeCluster, ManualClock } from '@capstan/runtime/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDER_OPTIONS } from './capvcd-scenario.js';
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
import { fakeManager } from './fake-provider.js';

const key = { namespace: NAMESPACE, name: CLUSTER };
const ruleName = affinityRuleName(NAMESPACE, CLUSTER, { controlPlane: true });
let stopAll: (() => Promise<void>) | undefined;

afterEach(async () => {
  onRuleCreate = undefined;
  await stopAll?.();
  stopAll = undefined;
});

/** Run (once) as a rule's create is answered, before the provider sees the answer. */
let onRuleCreate: (() => Promise<unknown>) | undefined;

/** vcdsim in-process, with {@link onRuleCreate} played as a create of a rule is answered. */
const transport: VcdTransport = async (url, request) => {
  const answer = await inProcess(url, request);
  if (request.method === 'POST' && url.pathname.endsWith('/vmAffinityRules') && onRuleCreate) {
    const hook = onRuleCreate;
    onRuleCreate = undefined;
    await hook();
  }
  return answer;
};

/**
 * The provider over a fake cluster holding a cluster of two control-plane machines, the endpoint
 * the user's or ours, the option on or not.
 */
async function start(
  endpoint: 'user' | 'managed',
  antiAffinity = true,
): Promise<ConformanceUser & { clock: ManualClock }> {
  const clock = new ManualClock();
  const kinds = [ClusterType, MachineType, VCDClusterType, VCDMachineType, VCDClusterIdentityType];
  const cluster = new FakeCluster({ clock, kinds: [...kinds, IPAddressClaimType, Secret, Event] });
  const user = { cluster, clock, client: new Client(cluster), killController: () => {} };
  await startSim(user);
  await createCluster(user);
  await user.client.patch(VCDClusterType, key, 'merge', {
    spec: {
      ...(endpoint === 'user'
        ? {
            loadBalancerConfigSpec: { disabled: true },
            controlPlaneEndpoint: { host: '10.10.0.9', port: 6443 },
          }
        : {}),
      ...(antiAffinity ? { antiAffinity: { controlPlane: 'Preferred' } } : {}),
    },
  });
  await createMachine(user, 'cp-0', true);
  await createMachine(user, 'cp-1', true);
  const manager = fakeManager(cluster, clock);
  addCapvcd(manager, { ...PROVIDER_OPTIONS, vcdTransport: transport });
  const stop = new AbortController();
  const done = manager.start(stop.signal);
  stopAll = async () => {
    stop.abort();
    await clock.advanceUntilSettled(done);
    await sim().stop();
  };
  return user;
}

/** Runs the provider (and Cluster API's part) in steps of `stepMs` until `done` holds. */
async function runUntil(
  user: ConformanceUser & { clock: ManualClock },
  done: () => boolean,
  what: string,
  details: () => string = () => '',
) {
  for (let t = 0; !done(); t += 10) {
    if (t > 120_000) throw new Error(`${what} did not hold within 120 s of virtual time; ${details()}`);
    await user.clock.advanceAsync(10);
    await capiStep(user);
  }
}

const vcdCluster = (user: ConformanceUser) => user.cluster.getObject(VCDClusterType, key) as VCDCluster;
const ruleInVcd = () => [...sim().inspect.world.affinityRules.values()].some((r) => r.name === ruleName);

/** Removes the option the moment the rule's create task is recorded (the task still running). */
async function offWhileCreating(user: ConformanceUser & { clock: ManualClock }) {
  await runUntil(
    user,
    () => vcdCluster(user).status?.task?.operation === 'CreateRule',
    'CreateRule recorded',
  );
  expect(ruleInVcd()).toBe(false);
  await user.client.patch(VCDClusterType, key, 'merge', { spec: { antiAffinity: null } });
}

/** No task left in VCD, the rule gone, and the cluster's status without task, rules or their condition. */
async function expectReleased(user: ConformanceUser & { clock: ManualClock }) {
  const gone = () => {
    const status = vcdCluster(user).status;
    const cond = status?.conditions?.some((c) => c.type === 'AntiAffinityRulesReady');
    const quiet = sim().inspect.unfinishedTasks().length === 0;
    return quiet && !ruleInVcd() && !status?.task && !status?.affinityRules?.length && !cond;
  };
  const seq = sim().inspect.requests().at(-1)?.seq ?? 0;
  await runUntil(user, gone, 'the rule gone and the status clear of it', () => {
    const calls = sim()
      .inspect.requests()
      .filter((r) => r.seq > seq);
    const status = vcdCluster(user).status;
    return `rule in VCD: ${ruleInVcd()}, task recorded: ${status?.task?.operation ?? 'none'}, VCD calls since: ${calls.length}`;
  });
  expect(vcdCluster(user).status?.ready).toBe(true);
}

describe('anti-affinity turned off while the rule is being created', () => {
  it.each(['user', 'managed'] as const)(
    'looks at the task until it ends, then deletes the rule it made (%s endpoint)',
    async (endpoint) => {
      const user = await start(endpoint);
      await offWhileCreating(user);
      await expectReleased(user);
    },
    60_000,
  );

  it('turned on with the VMs up, off as its first create is answered: the rule made is deleted', async () => {
    const user = await start('user', false);
    const up = () =>
      user.cluster.objects(VCDMachineType).every((m) => m.status?.initialization?.provisioned === true) &&
      vcdCluster(user).status?.ready === true;
    await runUntil(user, up, 'the VMs up');
    const before = sim().inspect.requests().at(-1)?.seq ?? 0;
    // The spec changes before the status recording the create's task is written: that write conflicts.
    onRuleCreate = () => user.client.patch(VCDClusterType, key, 'merge', { spec: { antiAffinity: null } });
    await user.client.patch(VCDClusterType, key, 'merge', {
      spec: { antiAffinity: { controlPlane: 'Preferred' } },
    });
    await runUntil(user, () => onRuleCreate === undefined, 'the rule’s create sent');
    await expectReleased(user);
    const creates = sim()
      .inspect.requests()
      .filter((r) => r.seq > before && r.method === 'POST' && r.route === '/api/vdc/{id}/vmAffinityRules');
    expect(creates).toHaveLength(1);
  }, 60_000);

  it('deletes the rule even when the first look after the task fails', async () => {
    const user = await start('user');
    await offWhileCreating(user);
    // The task ends and is cleared from status; the look that would find its rule fails.
    const seq = sim().inspect.requests().at(-1)?.seq ?? 0;
    sim().faults.httpErrors(500, 1, { method: 'GET', path: '/api/vdc/{id}/vmAffinityRules' });
    await expectReleased(user);
    const ruleCalls = sim()
      .inspect.requests()
      .filter((r) => r.seq > seq && /vmAffinityRule/.test(r.route))
      .map((r) => `${r.method} ${r.route} ${r.status}`);
    expect(ruleCalls.slice(0, 3)).toEqual([
      'GET /api/vdc/{id}/vmAffinityRules 500',
      'GET /api/vdc/{id}/vmAffinityRules 200',
      'DELETE /api/vmAffinityRule/{id} 202',
    ]);
  }, 60_000);
});
