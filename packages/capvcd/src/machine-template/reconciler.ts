/**
 * The VCDMachineTemplate reconciler: publishes `status.capacity` (cpu, memory) for the cluster
 * autoscaler ({@link templateCapacity}). The template's own sizing needs no VCD call; a sizing
 * policy is read once per session through the credentials of the template's cluster (its
 * `cluster.x-k8s.io/cluster-name` label, else its Cluster owner). A policy found is kept for
 * the session (a new session, e.g. after the credentials change, reads it again); the resync
 * every 10 min re-publishes from it and asks VCD again only for a policy it did not find.
 */
import type { Client, Clock, Reconciler, Request, Result } from '@capstan/runtime';
import { CLUSTER_NAME_LABEL } from '../api/keys.js';
import {
  type VCDCluster,
  VCDClusterType,
  type VCDMachineTemplate,
  VCDMachineTemplateType,
} from '../api/types.js';
import { CredentialsSecrets } from '../credentials-secrets.js';
import {
  type CapacityOutcome,
  ownSizing,
  type SizingPolicyFacts,
  templateCapacity,
} from '../decide/capacity.js';
import { failureReason } from '../failure-reason.js';
import { capiOwner, connectionFor, getCluster, getOrUndefined } from '../scope.js';
import { condition, writeStatus } from '../status.js';
import type { Connection, Connections } from '../vcd/connections.js';
import { UnknownReference } from '../vcd/errors.js';

/** The condition saying whether `status.capacity` is published. */
export const CAPACITY_CONDITION = 'CapacityKnown';

export interface TemplateReconcilerDeps {
  client: Client;
  /** Where the credentials Secret is read (default: the API server, each time). */
  secrets?: CredentialsSecrets;
  connections: Connections;
  clock: Clock;
  /** How often the capacity is published again (default 10 min; policies rarely change). */
  resyncMs?: number;
}

type TemplateStatus = NonNullable<VCDMachineTemplate['status']>;
/** A capacity outcome, or a reason of the reconciler's own (no cluster, no such policy). */
type Outcome = CapacityOutcome | { kind: 'unknown'; reason: string; message: string };
const unknown = (reason: string, message: string): Outcome => ({ kind: 'unknown', reason, message });

/**
 * A sizing policy's CPU count and memory (the machine reconciler's lookup, so one GET serves both),
 * or undefined when VCD has none of that name.
 */
async function policySizing(c: Connection, name: string): Promise<SizingPolicyFacts | undefined> {
  try {
    const { cpuCount, memoryMb } = await c.directory.computePolicy(name);
    return { cpuCount, memoryMb };
  } catch (err) {
    if (err instanceof UnknownReference) return undefined;
    throw err;
  }
}

/** Reconciles VCDMachineTemplates' capacity. */
export class VCDMachineTemplateReconciler implements Reconciler {
  private readonly secrets: CredentialsSecrets;

  constructor(private readonly deps: TemplateReconcilerDeps) {
    this.secrets = deps.secrets ?? new CredentialsSecrets(deps.client);
  }

  async reconcile(request: Request): Promise<Result | undefined> {
    const { client } = this.deps;
    const template = await getOrUndefined(() => client.get(VCDMachineTemplateType, request));
    if (!template || template.metadata.deletionTimestamp) return undefined;
    const spec = template.spec.template.spec;
    const own = ownSizing(spec);
    const status: TemplateStatus = structuredClone(template.status ?? {});
    const policyName = spec.sizingPolicy || undefined;
    if (!policyName || (own.numCPUs && own.memoryMiB))
      return this.publish(template, status, templateCapacity(own));
    const vcdCluster = await this.clusterOf(template);
    if (!vcdCluster) {
      // The VCDCluster's arrival brings it back.
      const why =
        'no VCDCluster to read the sizing policy through (label the template with cluster.x-k8s.io/cluster-name)';
      return this.publish(template, status, unknown('WaitingForCluster', why));
    }
    const resync = { requeueAfter: this.deps.resyncMs ?? 600_000 };
    try {
      const connection = await connectionFor(this.secrets, this.deps.connections, vcdCluster);
      const policy = await policySizing(connection, policyName);
      const outcome = policy
        ? templateCapacity(own, policy, policyName)
        : unknown('UnknownSizingPolicy', `no sizing policy ${policyName}`);
      await this.publish(template, status, outcome);
      return resync;
    } catch (err) {
      const reason = failureReason(err);
      if (reason === undefined || !(err instanceof Error)) throw err;
      // The last capacity known stays: a VCD outage does not stop scaling from zero.
      condition(status, template, CAPACITY_CONDITION, false, reason, err.message);
      await writeStatus(client, VCDMachineTemplateType, template, status, this.deps.clock);
      return { requeueAfter: 30_000 };
    }
  }

  private async publish(
    template: VCDMachineTemplate,
    status: TemplateStatus,
    outcome: Outcome,
  ): Promise<undefined> {
    if (outcome.kind === 'known') {
      status.capacity = outcome.capacity;
      condition(
        status,
        template,
        CAPACITY_CONDITION,
        true,
        'Published',
        `cpu ${outcome.capacity.cpu}, memory ${outcome.capacity.memory}`,
      );
    } else {
      delete status.capacity;
      condition(status, template, CAPACITY_CONDITION, false, outcome.reason, outcome.message);
    }
    await writeStatus(this.deps.client, VCDMachineTemplateType, template, status, this.deps.clock);
    return undefined;
  }

  /** The VCDCluster of the template's cluster (label, else Cluster owner), if it exists. */
  private async clusterOf(template: VCDMachineTemplate): Promise<VCDCluster | undefined> {
    const namespace = template.metadata.namespace as string;
    const name = template.metadata.labels?.[CLUSTER_NAME_LABEL] ?? capiOwner(template, 'Cluster');
    if (!name) return undefined;
    const cluster = await getCluster(this.deps.client, namespace, name);
    const ref = cluster?.spec?.infrastructureRef;
    if (ref?.kind !== 'VCDCluster') return undefined;
    return getOrUndefined(() => this.deps.client.get(VCDClusterType, { namespace, name: ref.name }));
  }
}
