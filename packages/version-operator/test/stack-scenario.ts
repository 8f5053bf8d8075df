/**
 * The version operator's conformance scenario, from its documented behaviour (README): a
 * RebootStack is deployed, then upgraded in a safe order (the coordinator runs the target
 * completely before the agent's DaemonSet changes), the agent rolling node by node within the
 * stack's bound, what the new version no longer has pruned; deleting the stack removes what it
 * made. The operator is wired by `addVersionOperator`, as its main wires it; kube-controller-
 * manager is played by ./workload-controllers.ts.
 */
import type { Manager } from '@capstan/runtime';
import { ConfigMap, DaemonSet, Deployment, Namespace } from '@capstan/runtime/client';
import type { ConformanceScenario, FakeCluster, WorldCheck } from '@capstan/runtime/testing';
import {
  addVersionOperator,
  type Catalogue,
  RebootGroupKind,
  type RebootStack,
  RebootStackType,
} from '../src/index.js';
import { DELETION_ORDER } from '../src/kinds.js';
import { catalogueWithB, VERSION_A, VERSION_B } from './version-b.js';
import {
  AGENT,
  COORDINATOR,
  controllersStep,
  createPods,
  maxUnavailableOf,
  NAMESPACE,
  NODES,
  podsOf,
  templateVersion,
} from './workload-controllers.js';

export const STACK = 'capstan';
/** Agents updated at most this many nodes at a time. */
export const BOUND = 1;
const ORDER = [VERSION_A, VERSION_B];
const rank = (version: string | undefined) => ORDER.indexOf(version ?? '');

/** Which operator to run: `addVersionOperator` as main calls it, or a broken copy for a mutation check. */
export type OperatorWiring = (
  manager: Manager,
  options: { catalogue: Catalogue; rolloutPollMs: number },
) => unknown;

const stackOf = (cluster: FakeCluster) => cluster.getObject(RebootStackType, { name: STACK });

/** The stack's safety properties: they must hold after every write and every step. */
const invariants: Record<string, WorldCheck> = {
  'the coordinator is upgraded before the agent': (cluster) => {
    const coordinator = podsOf(cluster, 'coordinator');
    const agentVersions = [
      templateVersion(cluster.getObject(DaemonSet, AGENT)),
      ...podsOf(cluster, 'agent').map((p) => p.version),
    ];
    // An agent at v needs every coordinator pod at v and ready, or already past v.
    const ahead = agentVersions.find(
      (v) =>
        v !== undefined &&
        coordinator.some((p) => rank(p.version) < rank(v) || (rank(p.version) === rank(v) && !p.ready)),
    );
    return ahead === undefined || `the agent runs ${ahead} before every coordinator pod does`;
  },
  'never two versions of the agent beyond the rollout bound': (cluster) => {
    const ds = cluster.getObject(DaemonSet, AGENT);
    if (ds && maxUnavailableOf(ds) !== BOUND)
      return `the DaemonSet's maxUnavailable is ${maxUnavailableOf(ds)}`;
    const pods = podsOf(cluster, 'agent');
    const versions = new Set(pods.map((p) => p.version));
    const down = pods.filter((p) => !p.ready).length;
    if (versions.size > 2) return `agents at ${[...versions].join(', ')}`;
    // A fresh DaemonSet starts every pod at once; afterwards the rollout keeps to the bound.
    const fresh = pods.every((p) => !p.ready);
    return fresh || down <= BOUND || `${down} agents down at once (bound ${BOUND})`;
  },
};

/** Both components run the stack's version completely, the stack says so, and version B pruned the Service. */
const converged: WorldCheck = (cluster) => {
  const stack = stackOf(cluster);
  const want = stack?.spec.version;
  for (const component of ['coordinator', 'agent'] as const) {
    const pods = podsOf(cluster, component);
    const expected =
      component === 'agent' ? NODES : (cluster.getObject(Deployment, COORDINATOR)?.spec?.replicas ?? 1);
    if (pods.length !== expected || pods.some((p) => !p.ready || p.version !== want))
      return `${component} pods: ${pods.map((p) => `${p.version}${p.ready ? '' : ' (not ready)'}`).join(', ')}`;
  }
  if (stack?.status?.observedVersion !== want) return `observedVersion ${stack?.status?.observedVersion}`;
  const service = cluster.getObject(DELETION_ORDER.find((t) => t.kind === 'Service') as never, COORDINATOR);
  return want !== VERSION_B || service === undefined || 'the coordinator Service was not pruned';
};

const setStack = (spec: Partial<RebootStack['spec']>) => ({
  apiVersion: 'operator.capstan.dev/v1alpha1',
  kind: 'RebootStack',
  metadata: { name: STACK },
  spec: {
    version: VERSION_A,
    protocol: 'capstan',
    defaultRebootGroups: false,
    agent: { maxUnavailable: BOUND },
    ...spec,
  },
});

/** The version operator deploying a stack at A and upgrading it to B, then the stack deleted. */
export function stackScenario(wiring: OperatorWiring = addVersionOperator): ConformanceScenario {
  return {
    name: 'version operator: deploy and upgrade a stack',
    // The namespace is applied, never deleted: it is not among the kinds deleted.
    kinds: [RebootStackType, RebootGroupKind, ConfigMap, Namespace, ...DELETION_ORDER],
    manager: { fieldManager: 'capstan-version-operator' },
    setup: (manager) => {
      // Polls less often than the default 2 s: a 30-minute clock jump fires every poll due in it.
      wiring(manager, { catalogue: catalogueWithB(), rolloutPollMs: 10_000 });
    },
    world: async (user) => {
      // The operator's own namespace: the stack's objects go there too, and it stays.
      await user.client.create(Namespace, { metadata: { name: NAMESPACE } });
      await createPods(user);
      return undefined;
    },
    tick: async (user) => {
      await controllersStep(user);
      return undefined;
    },
    actions: [
      {
        name: `create stack ${STACK} at ${VERSION_A}`,
        run: ({ client }) => client.create(RebootStackType, setStack({}) as RebootStack),
      },
      {
        name: `upgrade it to ${VERSION_B}`,
        run: ({ client }) =>
          client.patch(RebootStackType, { name: STACK }, 'merge', { spec: { version: VERSION_B } }),
      },
    ],
    converged,
    invariants,
    teardown: {
      name: `delete stack ${STACK}`,
      run: ({ client }) => client.delete(RebootStackType, { name: STACK }),
    },
    stepMs: 8_000,
    settleMs: 10 * 60_000,
  };
}
