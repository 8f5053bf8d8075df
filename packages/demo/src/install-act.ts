/**
 * Act 2, install: the version operator, in the workload cluster, as its Deployment would run it
 * (its own Manager, its ServiceAccount and the RBAC of its deploy/, leader election; kwok plays its
 * pod), is given a RebootStack: it installs the coordinator Deployment and the agent DaemonSet at
 * the stack's version and, once they are Available, creates the safe default RebootGroups.
 */
import { fileURLToPath } from 'node:url';
import { type ControlPlane, readManifests } from '@capstan/envtest';
import type { ProtocolName } from '@capstan/reboot-protocol';
import { Client, Manager } from '@capstan/runtime';
import { DaemonSet, Deployment, HttpTransport, Namespace } from '@capstan/runtime/client';
import {
  addVersionOperator,
  currentEntry,
  RebootGroupKind,
  type RebootStack,
  RebootStackType,
  rolloutOf,
  VERSION_OPERATOR_MANAGER,
} from '@capstan/version-operator';
import type { ActContext } from './act.js';
import { serviceAccountKubeConfig } from './identities.js';
import { type ComponentRow, componentAvailable, componentTable } from './tables.js';

/** The namespace the operators run in. */
export const OPERATORS_NAMESPACE = 'capstan-system';
const STACK = 'capstan';

/** A default RebootGroup as act 2 left it. */
export interface InstalledGroup {
  name: string;
  order: number;
  maxUnavailable: number | string;
}

/** What act 2 found, for the summary. */
export interface InstallFacts {
  version: string;
  /** The RebootStack's Available condition. */
  stackAvailable: boolean;
  components: ComponentRow[];
  groups: InstalledGroup[];
}

/** Options of {@link installOperators}. */
export interface InstallPlan {
  protocol: ProtocolName;
  /** The workers' budget of the default group the version operator creates (the stack's field). */
  workersMaxUnavailable: string;
}

const versionOperatorDeploy = (file: string) =>
  fileURLToPath(import.meta.resolve(`@capstan/version-operator/deploy/${file}`));

const component = async (client: Client, kind: 'Deployment' | 'DaemonSet', name: string) => {
  const type = kind === 'Deployment' ? Deployment : DaemonSet;
  const object = await client
    .get(type as typeof Deployment, { namespace: OPERATORS_NAMESPACE, name })
    .catch(() => undefined);
  const r = object
    ? rolloutOf({ ...(object as object), kind } as Parameters<typeof rolloutOf>[0])
    : undefined;
  // The version operator's own Deployment carries no version annotation: its image tag says it.
  const image = object?.spec?.template?.spec?.containers?.[0]?.image ?? '';
  return {
    name: `${kind} ${OPERATORS_NAMESPACE}/${name}`,
    desired: r?.desired ?? 0,
    updated: r?.updated ?? 0,
    available: r?.available ?? 0,
    version: r?.version ?? (image.includes(':') ? (image.split(':').at(-1) as string) : ''),
  };
};

/** Runs act 2 on `plane` (which has its nodes); see the file comment. */
export async function installOperators(
  ctx: ActContext,
  plane: ControlPlane,
  plan: InstallPlan,
): Promise<InstallFacts> {
  const { view } = ctx;
  const version = currentEntry().version;
  view.say(
    `Act 2: install. The version operator, in the workload cluster, is given RebootStack ${STACK} at version ${version} (${plan.protocol} protocol)...`,
  );
  const admin = new Client(new HttpTransport(plane.kubeConfig));
  await startVersionOperator(ctx, plane, admin);
  await admin.create(RebootStackType, {
    metadata: { name: STACK },
    spec: { version, protocol: plan.protocol, workersMaxUnavailable: plan.workersMaxUnavailable },
  } as RebootStack);
  const rollout = await awaitStackRollout(ctx, admin);
  const groups = await awaitDefaultGroups(ctx, admin);
  return { version, ...rollout, groups };
}

/**
 * Deploys the version operator's manifests and runs it in this process under its ServiceAccount's
 * identity, so its RBAC is what is tested; it stops when the demo ends.
 */
async function startVersionOperator(ctx: ActContext, plane: ControlPlane, admin: Client): Promise<void> {
  await admin.create(Namespace, { metadata: { name: OPERATORS_NAMESPACE } });
  await plane.installCRDs([versionOperatorDeploy('crds/rebootstacks.yaml')]);
  await plane.createObjects(readManifests(versionOperatorDeploy('rbac.yaml')));
  await plane.createObjects(readManifests(versionOperatorDeploy('operator.yaml')));
  const identity = await serviceAccountKubeConfig(plane, OPERATORS_NAMESPACE, VERSION_OPERATOR_MANAGER, (c) =>
    c.list(RebootStackType, { limit: 1 }),
  );
  const manager = Manager.create({
    kubeConfig: identity,
    leaderElection: { id: VERSION_OPERATOR_MANAGER, namespace: OPERATORS_NAMESPACE },
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    fieldManager: VERSION_OPERATOR_MANAGER,
    logger: ctx.logger.child({ component: 'version-operator' }),
  });
  addVersionOperator(manager, { rolloutPollMs: 500 });
  ctx.runManager('the version operator', manager);
}

/** Shows the components roll out (a line per change, a table redrawn) until the stack is Available. */
async function awaitStackRollout(
  ctx: ActContext,
  admin: Client,
): Promise<Pick<InstallFacts, 'stackAvailable' | 'components'>> {
  const { view } = ctx;
  let rows: ComponentRow[] = [];
  let stack: RebootStack | undefined;
  const seen = new Map<string, string>();
  const look = async () => {
    stack = await admin.get(RebootStackType, { name: STACK });
    rows = [
      await component(admin, 'Deployment', 'capstan-version-operator'),
      await component(admin, 'Deployment', 'capstan-coordinator'),
      await component(admin, 'DaemonSet', 'capstan-agent'),
    ];
    for (const r of rows) {
      const state = `${r.version || '-'} ${r.updated}/${r.desired} updated, ${r.available} available`;
      if (seen.get(r.name) !== state) {
        seen.set(r.name, state);
        view.line(`  ${r.name.padEnd(52)}${state}`);
      }
    }
    view.redraw(
      componentTable(rows),
      ctx.elapsed(),
      `RebootStack ${STACK}: ${condition(stack, 'Available') ?? 'no status yet'}`,
    );
  };
  const available = () => condition(stack, 'Available')?.startsWith('True') === true;
  await ctx.waitUntil('the RebootStack Available with every component rolled out', async () => {
    await look();
    return available() && rows.every(componentAvailable);
  });
  return { stackAvailable: available(), components: rows };
}

/** Waits for the version operator's default RebootGroups (control planes, then workers), in order. */
async function awaitDefaultGroups(ctx: ActContext, admin: Client): Promise<InstalledGroup[]> {
  let groups: InstalledGroup[] = [];
  await ctx.waitUntil('the default RebootGroups', async () => {
    const { items } = await admin.list(RebootGroupKind);
    groups = items.map((g) => ({
      name: g.metadata.name ?? '',
      order: Number(g.spec.order ?? 0),
      maxUnavailable: g.spec.maxUnavailable as number | string,
    }));
    return groups.length >= 2;
  });
  ctx.view.settle();
  ctx.view.say(
    `  the version operator created the default RebootGroups: ${groups.map((g) => `${g.name} (order ${g.order}, maxUnavailable ${g.maxUnavailable})`).join('; ')}`,
  );
  groups.sort((a, b) => a.order - b.order);
  return groups;
}

/** `True (reason)` or `False (reason: message)` of a stack condition. */
function condition(stack: RebootStack | undefined, type: string): string | undefined {
  const c = stack?.status?.conditions?.find((x) => x.type === type);
  return c && `${c.status} (${c.reason}${c.status === 'True' ? '' : `: ${c.message}`})`;
}
