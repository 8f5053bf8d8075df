/**
 * What plays the pods kwok only fakes, for the migration test: the real coordinator, run
 * in-process whenever its Deployment asks for replicas, on the protocol its pod template names;
 * and a simulated agent per node (as the coordinator's e2e test-agent does), speaking the protocol
 * of the agent pod on its node, deriving what to do from the node alone (so a restart on the
 * other protocol resumes), and rebooting through kwok (NotReady, then Ready with a new boot ID).
 */
import { addCoordinator } from '@capstan/coordinator';
import type { ControlPlane } from '@capstan/envtest';
import { coordinatorKeys, type Protocol, type ProtocolName, protocolOf } from '@capstan/reboot-protocol';
import { type Client, conditionalMergePatch, isConflict, Manager } from '@capstan/runtime';
import { Deployment, Node, Pod } from '@capstan/runtime/client';
import type { KubeConfig } from '@kubernetes/client-node';
import { PROTOCOL_ANNOTATION, stackLabels } from '../src/index.js';
import { NAMESPACE } from './helpers.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the coordinator as its Deployment says: replicas > 0 on the template's protocol, or not at
 * all; a new pod template version restarts it (a rollout replaces the leader).
 */
export class CoordinatorFollower {
  readonly history: Array<ProtocolName | 'stopped'> = [];
  /** The template version of each coordinator started, in order. */
  readonly versions: string[] = [];
  private running:
    | { protocol: ProtocolName; version?: string; stop: AbortController; done: Promise<void> }
    | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly client: Client,
    private readonly kubeConfig: KubeConfig,
  ) {}

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        await this.follow().catch(() => {});
        await tick(100);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    await this.halt();
  }

  private async follow(): Promise<void> {
    const d = await this.client
      .get(Deployment, { namespace: NAMESPACE, name: 'capstan-coordinator' })
      .catch(() => undefined);
    const protocol = d?.spec?.template?.metadata?.annotations?.[PROTOCOL_ANNOTATION] as
      | ProtocolName
      | undefined;
    const wanted = d && (d.spec?.replicas ?? 1) > 0 ? protocol : undefined;
    const version = d?.spec?.template?.metadata?.annotations?.[stackLabels.version];
    if (wanted === this.running?.protocol && (!wanted || version === this.running?.version)) return;
    await this.halt();
    if (!wanted) return void this.history.push('stopped');
    const manager = Manager.create({
      kubeConfig: this.kubeConfig,
      leaderElection: {
        id: 'capstan-coordinator',
        namespace: NAMESPACE,
        leaseDurationMs: 6000,
        renewDeadlineMs: 4000,
        retryPeriodMs: 500,
      },
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logLevel: 'silent',
      eventSource: 'reboot.capstan.dev/coordinator',
      fieldManager: 'capstan-coordinator',
    });
    addCoordinator(manager, {
      namespace: NAMESPACE,
      protocol: wanted,
      resyncPeriodMs: 500,
      defaultGrantTimeoutMs: 120_000,
    });
    const stop = new AbortController();
    const running = { protocol: wanted, version, stop, done: manager.start(stop.signal) };
    this.running = running;
    // A coordinator that loses its lease (a slow, loaded machine) exits; its pod would restart it.
    running.done = running.done.catch(() => {
      if (this.running === running) this.running = undefined;
    });
    if (this.history.at(-1) === wanted && this.versions.at(-1) === (version ?? '')) return;
    this.history.push(wanted);
    this.versions.push(version ?? '');
  }

  private async halt(): Promise<void> {
    if (!this.running) return;
    this.running.stop.abort();
    await this.running.done.catch(() => {});
    this.running = undefined;
  }
}

/** Where a simulated agent holds still, so the test can catch nodes granted and mid-reboot. */
export type Hold = 'none' | 'beforeActing' | 'midReboot';

/** One node's agent, following the agent pod on its node. */
export class SimAgent {
  hold: Hold = 'none';
  reboots = 0;
  readonly spoke = new Set<ProtocolName>();
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly client: Client,
    private readonly plane: ControlPlane,
    readonly name: string,
  ) {}

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        try {
          await this.step();
        } catch (err) {
          if (!isConflict(err)) throw err;
        }
        await tick(80);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** The update engine staged an update: the agent asks, under the protocol it speaks now. */
  async ask(): Promise<void> {
    const p = await this.protocol();
    if (!p) throw new Error(`no agent pod on ${this.name}`);
    await this.patch(undefined, { [p.annotations.rebootNeeded]: 'true' });
  }

  private async protocol(): Promise<Protocol | undefined> {
    const { items } = await this.client.list(Pod, {
      namespace: NAMESPACE,
      labelSelector: 'app.kubernetes.io/name=capstan-agent',
    });
    const mine = items.filter((p) => p.spec?.nodeName === this.name && !p.metadata.deletionTimestamp);
    const name =
      mine.length === 1 ? (mine[0]?.metadata.annotations?.[PROTOCOL_ANNOTATION] as ProtocolName) : undefined;
    return name ? protocolOf(name) : undefined;
  }

  private patch(
    rv: string | undefined,
    annotations: Record<string, string>,
    extra: Record<string, unknown> = {},
  ) {
    return this.client.patch(
      Node,
      { name: this.name },
      'merge',
      conditionalMergePatch(rv, { annotations }, extra),
    );
  }

  private async step(): Promise<void> {
    const p = await this.protocol();
    if (!p) return; // no agent runs on the node right now
    this.spoke.add(p.name as ProtocolName);
    const node = await this.client.get(Node, { name: this.name });
    const a = node.metadata.annotations ?? {};
    const P = p.annotations;
    const rv = node.metadata.resourceVersion;
    const boot = node.status?.nodeInfo?.bootID;
    const grantedBoot = a[coordinatorKeys.grantedBootId];
    const ok = a[P.rebootOk] === 'true';
    if (a[P.rebootInProgress] === 'true') {
      if (grantedBoot === undefined || grantedBoot === boot) {
        if (this.hold === 'midReboot') return;
        this.reboots++;
        await this.plane.rebootNode(this.name, { downMs: 300 });
      } else {
        await this.patch(rv, { [P.rebootNeeded]: 'false', [P.rebootInProgress]: 'false' });
      }
    } else if (ok && a[P.rebootNeeded] === 'true' && (grantedBoot === undefined || grantedBoot === boot)) {
      if (this.hold === 'beforeActing') return;
      await this.patch(
        rv,
        { [P.rebootInProgress]: 'true', [P.agentMadeUnschedulable]: 'true' },
        { spec: { unschedulable: true } },
      );
    } else if (!ok && a[P.agentMadeUnschedulable] === 'true') {
      await this.patch(rv, { [P.agentMadeUnschedulable]: 'false' }, { spec: { unschedulable: false } });
    }
  }
}
