/**
 * The version operator on a simulated cluster (envtest with kube-controller-manager,
 * kube-scheduler and four kwok nodes, so Deployments and DaemonSets really roll out): by hand
 * from deploy/ without it; a stack at version A; the upgrade to B in order; bad specs as
 * conditions; deletion removing what it created while node annotations stay.
 */
import { fileURLToPath } from 'node:url';
import { readManifests } from '@capstan/envtest';
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { DaemonSet, Deployment, Namespace, Node, Pod } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  completeAt,
  packageDeployDir,
  RebootGroupKind,
  type RebootStack,
  RebootStackType,
  stackLabels,
} from '../src/index.js';
import {
  admin,
  condition,
  FROZEN,
  freezeAgentDaemonSet,
  NAMESPACE,
  NODES,
  rollouts,
  startOperator,
} from './helpers.js';
import { catalogueWithB, VERSION_A, VERSION_B } from './version-b.js';

const env = useOwnControlPlane({ controllerManager: true, scheduler: true, kwok: true }, 'stack');
const CRD = fileURLToPath(new URL('../deploy/crds/rebootstacks.yaml', import.meta.url));
const STACK = 'capstan';
let stopOperator: (() => Promise<void>) | undefined;

beforeAll(async () => {
  await env.plane.addNodes(NODES);
  await env.plane.installCRDs([CRD]);
}, 120_000);
afterAll(async () => {
  await stopOperator?.();
});

const getStack = () => admin(env).get(RebootStackType, { name: STACK });
const patchSpec = (spec: Record<string, unknown>) =>
  admin(env).patch(RebootStackType, { name: STACK }, 'merge', { spec });

describe('by hand, without the version operator', () => {
  it('the coordinator and the agent deploy from their deploy/ files and roll out', async () => {
    const files = (pkg: string, names: string[]) =>
      names.flatMap((f) => readManifests(`${packageDeployDir(pkg)}/${f}`));
    await env.plane.createObjects([
      // The documented install order (docs/install.md): namespace, CRDs, RBAC, policies, workloads.
      ...files('@capstan/coordinator', [
        'namespace.yaml',
        'crds/rebootgroups.yaml',
        'rbac.yaml',
        'admission-policy.yaml',
        'coordinator.yaml',
      ]),
      ...files('@capstan/agent', ['rbac.yaml', 'admission-policy.yaml', 'daemonset.yaml']),
    ]);
    const client = admin(env);
    await eventually(
      async () => {
        const r = await rollouts(client);
        return r.coordinator?.complete && r.agent?.complete && r.agent.desired === 4 ? r : undefined;
      },
      { what: 'the hand-deployed coordinator and agents to roll out', timeoutMs: 60_000 },
    );
    // Hand over to the operator from nothing: remove the workloads, keep the namespace.
    await client.delete(
      Deployment,
      { namespace: NAMESPACE, name: 'capstan-coordinator' },
      { propagationPolicy: 'Foreground' },
    );
    await client.delete(
      DaemonSet,
      { namespace: NAMESPACE, name: 'capstan-agent' },
      { propagationPolicy: 'Foreground' },
    );
    await eventually(
      async () => ((await rollouts(client)).coordinator || (await rollouts(client)).agent ? undefined : true),
      {
        what: 'the hand-deployed workloads to go',
        timeoutMs: 60_000,
      },
    );
  }, 150_000);
});

describe('a RebootStack', () => {
  it('at version A: the coordinator Deployment and the agent DaemonSet become Available on 4 nodes', async () => {
    // The operator runs as its own service account, with nothing but the RBAC of its deploy/.
    await env.plane.createObjects(
      readManifests(fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url))),
    );
    const identity = await env.plane.serviceAccountKubeConfig(NAMESPACE, 'capstan-version-operator');
    stopOperator = await startOperator(env, catalogueWithB(), identity);
    const client = admin(env);
    await client.create(RebootStackType, {
      metadata: { name: STACK },
      spec: { version: VERSION_A, agent: { maxUnavailable: 1 } },
    } as RebootStack);
    const stack = await eventually(
      async () => {
        const s = await getStack();
        return condition(s, 'Available')?.status === 'True' && s.status?.observedVersion === VERSION_A
          ? s
          : undefined;
      },
      { what: 'the stack Available at version A', timeoutMs: 90_000 },
    );
    expect(stack.status?.observedProtocol).toBe('capstan');
    expect(stack.status?.coordinator).toMatchObject({
      rollout: 'Complete',
      version: VERSION_A,
      desired: 2,
      available: 2,
    });
    expect(stack.status?.agent).toMatchObject({
      rollout: 'Complete',
      version: VERSION_A,
      desired: 4,
      available: 4,
    });
    expect(condition(stack, 'Degraded')?.status).toBe('False');
    const r = await rollouts(client);
    expect(completeAt(r.coordinator, VERSION_A, 'capstan') && completeAt(r.agent, VERSION_A, 'capstan')).toBe(
      true,
    );
    // The safe default policy: the control plane first and one at a time, then the workers.
    const groups = await eventually(
      async () => {
        const { items } = await client.list(RebootGroupKind);
        return items.length === 2 ? items : undefined;
      },
      { what: 'the default RebootGroups' },
    );
    const byName = Object.fromEntries(groups.map((g) => [g.metadata.name, g.spec]));
    expect(byName['control-plane']).toMatchObject({ maxUnavailable: 1, order: 0 });
    expect(byName.workers).toMatchObject({ maxUnavailable: '25%', order: 1 });
  }, 150_000);

  it('bumped to B: the coordinator rolls out before any agent pod changes, the agents within their bound', async () => {
    const client = admin(env);
    const seen: string[] = [];
    let agentChangedBeforeCoordinator = false;
    let mostAgentsDown = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const r = await rollouts(client);
        const { items: pods } = await client.list(Pod, {
          namespace: NAMESPACE,
          labelSelector: 'app.kubernetes.io/name=capstan-agent',
        });
        const agentPodsAtB = pods.filter(
          (p) => p.metadata.annotations?.[stackLabels.version] === VERSION_B,
        ).length;
        const coordinatorDone = completeAt(r.coordinator, VERSION_B, 'capstan');
        if ((agentPodsAtB > 0 || r.agent?.version === VERSION_B) && !coordinatorDone)
          agentChangedBeforeCoordinator = true;
        if (coordinatorDone && !seen.includes('coordinator')) seen.push('coordinator');
        if (agentPodsAtB > 0 && !seen.includes('first agent pod')) seen.push('first agent pod');
        if (r.agent) mostAgentsDown = Math.max(mostAgentsDown, r.agent.desired - r.agent.available);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    await patchSpec({ version: VERSION_B });
    const stack = await eventually(
      async () => {
        const s = await getStack();
        return condition(s, 'Available')?.status === 'True' && s.status?.observedVersion === VERSION_B
          ? s
          : undefined;
      },
      { what: 'the stack Available at version B', timeoutMs: 120_000 },
    );
    watching = false;
    await watch;
    expect(agentChangedBeforeCoordinator).toBe(false);
    expect(seen).toEqual(['coordinator', 'first agent pod']);
    expect(mostAgentsDown).toBeLessThanOrEqual(1);
    // The status shows the order too.
    const coordinatorAt = Date.parse(stack.status?.coordinator?.completedAt ?? '');
    const agentAt = Date.parse(stack.status?.agent?.completedAt ?? '');
    expect(coordinatorAt).toBeLessThanOrEqual(agentAt);
    // B has no coordinator Service: pruned.
    const { items: services } = await client.list(
      { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true },
      { namespace: NAMESPACE },
    );
    expect(services.map((s) => s.metadata.name)).not.toContain('capstan-coordinator');
  }, 180_000);

  it('refuses bad specs with conditions and keeps running what it ran', async () => {
    const client = admin(env);
    const degradedBy = async (reason: string) =>
      eventually(
        async () => {
          const s = await getStack();
          return condition(s, 'Degraded')?.reason === reason &&
            s.status?.observedGeneration === s.metadata.generation
            ? s
            : undefined;
        },
        { what: `Degraded ${reason}`, timeoutMs: 30_000 },
      );
    // What the schema can say, the server refuses: the workers' budget is a count ≥ 1 or a percentage.
    for (const bad of [0, '0%', '101%', 'half'])
      await expect(patchSpec({ workersMaxUnavailable: bad }), String(bad)).rejects.toThrow(
        /workersMaxUnavailable/,
      );
    await patchSpec({ workersMaxUnavailable: '40%' });
    await patchSpec({ workersMaxUnavailable: null });
    await patchSpec({ version: '9.9.9' });
    const unknown = await degradedBy('UnknownVersion');
    expect(condition(unknown, 'Degraded')?.message).toContain('9.9.9');
    await patchSpec({ version: VERSION_B, coordinator: { flags: { 'no-such-flag': 'x' } } });
    expect(condition(await degradedBy('InvalidFlags'), 'Degraded')?.message).toContain('--no-such-flag');
    await patchSpec({ coordinator: null, version: VERSION_A });
    expect(condition(await degradedBy('UnsupportedUpgrade'), 'Degraded')?.message).toContain(VERSION_B);
    await patchSpec({ version: VERSION_B, protocol: 'fluo' });
    expect(condition(await degradedBy('UnsupportedMigration'), 'Degraded')?.message).toContain(
      'capstan to fluo',
    );
    // Nothing changed meanwhile.
    expect(completeAt((await rollouts(client)).coordinator, VERSION_B, 'capstan')).toBe(true);
    // A selector that matches no node: the agents run nowhere, which is reported, not hidden.
    await patchSpec({
      protocol: 'capstan',
      agent: { maxUnavailable: 1, nodeSelector: { 'no-such-label': 'x' } },
    });
    const nowhere = await degradedBy('NoNodesSelected');
    expect(condition(nowhere, 'Available')?.status).toBe('False');
    await patchSpec({ agent: { maxUnavailable: 1, nodeSelector: null } });
    await eventually(
      async () => (condition(await getStack(), 'Available')?.status === 'True' ? true : undefined),
      {
        what: 'Available again',
        timeoutMs: 60_000,
      },
    );
  }, 180_000);

  it('a refused apply: ApplyFailed with the server message, the coordinator still reconciled, recovered once lifted', async () => {
    const client = admin(env);
    await eventually(
      async () => {
        const s = await getStack();
        return condition(s, 'Progressing')?.reason === 'Complete' &&
          condition(s, 'Available')?.status === 'True'
          ? true
          : undefined;
      },
      { what: 'the stack settled', timeoutMs: 60_000 },
    );
    const unfreeze = await freezeAgentDaemonSet(env);
    onTestFinished(unfreeze);
    const agentKey = { namespace: NAMESPACE, name: 'capstan-agent' };
    // One change to each component: the coordinator's goes through, the agent's is refused.
    await patchSpec({
      coordinator: { replicas: 1 },
      agent: { maxUnavailable: 1, flags: { 'log-level': 'debug' } },
    });
    const refused = await eventually(
      async () => {
        const s = await getStack();
        return condition(s, 'Degraded')?.reason === 'ApplyFailed' ? s : undefined;
      },
      { what: 'Degraded ApplyFailed', timeoutMs: 30_000 },
    );
    expect(condition(refused, 'Degraded')).toMatchObject({ status: 'True' });
    expect(condition(refused, 'Degraded')?.message).toContain(FROZEN);
    expect(condition(refused, 'Progressing')).toMatchObject({ status: 'False', reason: 'ApplyFailed' });
    expect(refused.status?.observedVersion).toBe(VERSION_B);
    // The coordinator is applied before the agent: its change is made although the agent's is not.
    await eventually(
      async () => {
        const d = await client.get(Deployment, { namespace: NAMESPACE, name: 'capstan-coordinator' });
        return d.spec?.replicas === 1 ? true : undefined;
      },
      { what: 'the coordinator scaled to 1 meanwhile', timeoutMs: 30_000 },
    );
    const agentArgs = async () =>
      ((await client.get(DaemonSet, agentKey)).spec?.template?.spec?.containers?.[0]?.args ?? []) as string[];
    expect(await agentArgs()).not.toContain('--log-level=debug');
    // Lifted: the operator retries on its own (no spec change) and carries the agent's change out.
    await unfreeze();
    const recovered = await eventually(
      async () => {
        const s = await getStack();
        return condition(s, 'Degraded')?.status === 'False' &&
          condition(s, 'Progressing')?.reason === 'Complete' &&
          (await agentArgs()).includes('--log-level=debug')
          ? s
          : undefined;
      },
      { what: 'recovered once the policy is lifted', timeoutMs: 90_000 },
    );
    expect(condition(recovered, 'Available')?.status).toBe('True');
    expect(recovered.status?.observedGeneration).toBe(recovered.metadata.generation);
    await patchSpec({ coordinator: null, agent: { maxUnavailable: 1 } });
  }, 180_000);

  it('deleted: removes what it created; node annotations stay', async () => {
    const client = admin(env);
    const note = 'reboot.capstan.dev/reboot-needed';
    await client.patch(Node, { name: 'worker-1' }, 'merge', {
      metadata: { annotations: { [note]: 'true' } },
    });
    await client.delete(RebootStackType, { name: STACK });
    await eventually(
      async () => {
        const gone = await getStack().then(
          () => false,
          () => true,
        );
        const r = await rollouts(client);
        return gone && !r.coordinator && !r.agent ? true : undefined;
      },
      { what: 'the stack and its workloads gone', timeoutMs: 60_000 },
    );
    const node = await client.get(Node, { name: 'worker-1' });
    expect(node.metadata.annotations?.[note]).toBe('true');
    // The namespace is shared (the operator may run there): it stays.
    expect((await client.get(Namespace, { name: NAMESPACE })).metadata.deletionTimestamp).toBeUndefined();
  }, 90_000);

  it('deleted with deletionPolicy Orphan: leaves the coordinator and the agents running', async () => {
    const client = admin(env);
    await client.create(RebootStackType, {
      metadata: { name: STACK },
      spec: { version: VERSION_B, deletionPolicy: 'Orphan', defaultRebootGroups: false },
    } as RebootStack);
    await eventually(
      async () => (condition(await getStack(), 'Available')?.status === 'True' ? true : undefined),
      {
        what: 'the stack Available',
        timeoutMs: 90_000,
      },
    );
    await client.delete(RebootStackType, { name: STACK });
    await eventually(
      async () =>
        getStack().then(
          () => undefined,
          () => true,
        ),
      { what: 'the stack gone' },
    );
    const r = await rollouts(client);
    expect(completeAt(r.coordinator, VERSION_B, 'capstan') && completeAt(r.agent, VERSION_B, 'capstan')).toBe(
      true,
    );
  }, 120_000);
});
