/**
 * What happens to kwok-managed Nodes: they are added (and become Ready), rebooted (NotReady, then
 * Ready with a new boot ID and their pods running again) or failed (NotReady until healed). While
 * a node is down, kwok stops managing it, as a machine's kubelet stops with the machine.
 */
import { randomUUID } from 'node:crypto';
import type { ApiAnswer } from './http.js';
import { kwokManagedValue, kwokNodeAnnotation } from './kwok.js';
import {
  type ConditionsHolder,
  kubeTime,
  type NodeSpec,
  nodeObject,
  nodeUp,
  podRunning,
  readyPatch,
} from './nodes.js';
import { delay, pollUntil } from './wait.js';

/** One request as the admin; `contentType` defaults to JSON. */
export type AdminRequest = (
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
) => Promise<ApiAnswer>;

const strategic = 'application/strategic-merge-patch+json';
const merge = 'application/merge-patch+json';

/** Options of `ControlPlane.rebootNode`. */
export interface RebootOptions {
  /**
   * How long the node stays down, from the moment kwok lets go of it (its shutdown: the settle
   * wait and the writes that take it down count), to its new boot ID; default 500 ms.
   */
  downMs?: number;
  /** How long to wait for it and its pods to come back; default 30 s. */
  timeoutMs?: number;
  /** The `status.nodeInfo.osImage` it boots (an OS update); default unchanged. */
  osImage?: string;
  /**
   * How often to look whether it is back (Ready, the controller-manager's not-ready taint lifted,
   * its pods running again), in ms; default 25: a look is one small read, made only while the
   * node comes back (~0.1 s), and a coarser look adds half its period to every reboot.
   */
  pollMs?: number;
}

/** Nodes created at once by {@link KwokNodes.add}: a fleet is created in minutes, not hours. */
const CREATE_PARALLELISM = 16;

interface PodJson extends ConditionsHolder {
  metadata: { name: string; namespace: string; deletionTimestamp?: string };
}

/** Adds, reboots and fails kwok-managed Nodes through the admin's requests. */
export class KwokNodes {
  constructor(private readonly request: AdminRequest) {}

  /**
   * Creates the nodes (16 at a time) and waits until kwok reports each Ready, looking with one
   * list of the nodes, not a read per node, less often the more nodes there are.
   */
  async add(specs: NodeSpec[], timeoutMs = 30_000): Promise<string[]> {
    let next = 0;
    const create = async () => {
      for (let i = next++; i < specs.length; i = next++) {
        const spec = specs[i] as NodeSpec;
        const answer = await this.request('POST', '/api/v1/nodes', nodeObject(spec));
        if (answer.status !== 201)
          throw new Error(`creating node ${spec.name}: ${JSON.stringify(answer.body)}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CREATE_PARALLELISM, specs.length) }, create));
    const names = specs.map((s) => s.name);
    const shown =
      names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ');
    await pollUntil(
      `nodes ${shown} Ready (is kwok running? start with { kwok: true })`,
      timeoutMs,
      async () => ((await this.notUp(names)) === 0 ? true : undefined),
      Math.min(2_000, 100 + names.length),
    );
    return names;
  }

  /** How many of `names` are not up (missing, or not Ready), from one list of the nodes. */
  private async notUp(names: readonly string[]): Promise<number> {
    const answer = await this.request('GET', '/api/v1/nodes');
    if (answer.status !== 200) throw new Error(`listing nodes: ${JSON.stringify(answer.body)}`);
    const items = (answer.body as { items: Array<ConditionsHolder & { metadata: { name: string } }> }).items;
    const up = new Set(items.filter((n) => nodeUp(n)).map((n) => n.metadata.name));
    return names.filter((n) => !up.has(n)).length;
  }

  /**
   * Reboots a node: it goes NotReady and its pods not ready, stays down `downMs`, then comes back
   * Ready with a new `status.nodeInfo.bootID` and its pods Running again. Answers the new boot ID.
   */
  async reboot(name: string, options: RebootOptions = {}): Promise<string> {
    const since = Date.now();
    const pods = await this.takeDown(name, 'False', 'KubeletNotReady', 'node is rebooting (envtest)');
    await delay(Math.max(0, (options.downMs ?? 500) - (Date.now() - since)));
    const bootID = randomUUID();
    await this.patch(
      `/api/v1/nodes/${name}/status`,
      { status: { nodeInfo: { bootID, ...(options.osImage ? { osImage: options.osImage } : {}) } } },
      strategic,
    );
    await this.bringUp(name, pods, options.timeoutMs ?? 30_000, options.pollMs);
    return bootID;
  }

  /**
   * Fails a node: kwok stops managing it, it turns Ready=Unknown (as the node lifecycle controller
   * reports a kubelet that stopped posting status) and its pods not ready, until {@link heal}.
   */
  async fail(name: string): Promise<void> {
    await this.takeDown(name, 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.');
  }

  /** Gives a failed node back to kwok: Ready again (same boot ID), its pods Running again. */
  async heal(name: string, timeoutMs = 30_000): Promise<void> {
    await this.bringUp(name, await this.podsOn(name), timeoutMs);
  }

  private async takeDown(
    name: string,
    status: 'False' | 'Unknown',
    reason: string,
    message: string,
  ): Promise<PodJson[]> {
    await this.patch(
      `/api/v1/nodes/${name}`,
      { metadata: { annotations: { [kwokNodeAnnotation]: 'down' } } },
      merge,
    );
    // Let kwok drop the node before we write its status, so a heartbeat in flight cannot undo it.
    await delay(300);
    await this.patch(`/api/v1/nodes/${name}/status`, readyPatch(status, reason, message), strategic);
    const pods = await this.podsOn(name);
    const now = kubeTime();
    for (const pod of pods) {
      await this.patchPod(pod, {
        status: {
          conditions: ['Ready', 'ContainersReady'].map((type) => ({
            type,
            status: 'False',
            reason: 'NodeNotReady',
            lastTransitionTime: now,
          })),
        },
      });
    }
    return pods;
  }

  private async bringUp(name: string, pods: PodJson[], timeoutMs: number, pollMs = 25): Promise<void> {
    // Pending again, without the old IP, so kwok's pod-ready stage starts them anew.
    for (const pod of pods)
      await this.patchPod(pod, { status: { phase: 'Pending', podIP: null, podIPs: null } }, merge);
    await this.patch(
      `/api/v1/nodes/${name}`,
      { metadata: { annotations: { [kwokNodeAnnotation]: kwokManagedValue } } },
      merge,
    );
    await pollUntil(
      `node ${name} Ready again`,
      timeoutMs,
      async () => ((await this.up(name)) ? true : undefined),
      pollMs,
    );
    await pollUntil(
      `the pods of node ${name} Running again`,
      timeoutMs,
      async () => {
        const now = await this.podsOn(name);
        const back = pods.filter((p) => now.some((n) => n.metadata.name === p.metadata.name));
        return back.every((p) => podRunning(now.find((n) => n.metadata.name === p.metadata.name) as PodJson))
          ? true
          : undefined;
      },
      pollMs,
    );
  }

  private async up(name: string): Promise<boolean> {
    const answer = await this.request('GET', `/api/v1/nodes/${name}`);
    return answer.status === 200 && nodeUp(answer.body as ConditionsHolder);
  }

  private async podsOn(name: string): Promise<PodJson[]> {
    const answer = await this.request(
      'GET',
      `/api/v1/pods?fieldSelector=spec.nodeName%3D${encodeURIComponent(name)}`,
    );
    if (answer.status !== 200) throw new Error(`listing the pods of ${name}: ${JSON.stringify(answer.body)}`);
    return (answer.body as { items: PodJson[] }).items.filter((p) => !p.metadata.deletionTimestamp);
  }

  private async patchPod(pod: PodJson, body: unknown, contentType = strategic): Promise<void> {
    const path = `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}/status`;
    const answer = await this.request('PATCH', path, body, contentType);
    // A pod deleted meanwhile needs nothing.
    if (answer.status !== 200 && answer.status !== 404)
      throw new Error(
        `patching pod ${pod.metadata.namespace}/${pod.metadata.name}: ${JSON.stringify(answer.body)}`,
      );
  }

  private async patch(path: string, body: unknown, contentType: string): Promise<void> {
    const answer = await this.request('PATCH', path, body, contentType);
    if (answer.status !== 200) throw new Error(`PATCH ${path}: ${JSON.stringify(answer.body)}`);
  }
}
