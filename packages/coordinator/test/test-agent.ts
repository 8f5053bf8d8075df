/**
 * A simulated update agent for envtest: polls its Node through the API and plays the agent's
 * part — asks, and when granted marks the reboot in progress, cordons, "reboots" (NotReady, a new
 * boot ID through the status subresource), comes back Ready, clears needed and in-progress, and
 * uncordons what it cordoned once the grant is withdrawn.
 */

import { capstanProtocol, type Protocol } from '@capstan/reboot-protocol';
import { type Client, conditionalMergePatch, isConflict } from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';

type Stage = 'idle' | 'draining' | 'down' | 'booted';

export class TestAgent {
  stage: Stage = 'idle';
  boots = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly client: Client,
    readonly name: string,
    private readonly protocol: Protocol = capstanProtocol,
    private readonly pollMs = 60,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** Writes Ready and the boot ID through the status subresource. */
  static async writeStatus(client: Client, name: string, ready: boolean, boot: number): Promise<void> {
    await client.patchStatus(Node, { name }, 'merge', {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: ready ? 'True' : 'False',
            reason: ready ? 'KubeletReady' : 'Rebooting',
            message: ready ? 'simulated kubelet is ready' : 'simulated reboot',
            lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        ],
        nodeInfo: {
          bootID: `${name}-boot-${boot}`,
          machineID: machineIdOf(name),
          systemUUID: machineIdOf(name),
          kernelVersion: '6.6.0',
          osImage: 'Flatcar Container Linux',
          containerRuntimeVersion: 'containerd://1.7.0',
          kubeletVersion: 'v1.33.0',
          kubeProxyVersion: 'v1.33.0',
          operatingSystem: 'linux',
          architecture: 'amd64',
        },
      },
    });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.step();
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }

  private async step(): Promise<void> {
    const P = this.protocol.annotations;
    const node = await this.client.get(Node, { name: this.name });
    const a = node.metadata.annotations ?? {};
    const ok = a[P.rebootOk] === 'true';
    const needed = a[P.rebootNeeded] === 'true';
    const rv = node.metadata.resourceVersion;
    switch (this.stage) {
      case 'idle':
        if (ok && needed) {
          const edits = { annotations: { [P.rebootInProgress]: 'true', [P.agentMadeUnschedulable]: 'true' } };
          const body = conditionalMergePatch(rv, edits, { spec: { unschedulable: true } });
          await this.client.patch(Node, { name: this.name }, 'merge', body);
          this.stage = 'draining';
        }
        break;
      case 'draining':
        this.boots++;
        await TestAgent.writeStatus(this.client, this.name, false, this.boots);
        this.stage = 'down';
        break;
      case 'down':
        await TestAgent.writeStatus(this.client, this.name, true, this.boots);
        await this.client.patch(Node, { name: this.name }, 'merge', {
          metadata: { annotations: { [P.rebootNeeded]: 'false', [P.rebootInProgress]: 'false' } },
        });
        this.stage = 'booted';
        break;
      case 'booted': {
        if (ok) break;
        const edits = { annotations: { [P.agentMadeUnschedulable]: 'false' } };
        const body = conditionalMergePatch(rv, edits, { spec: { unschedulable: false } });
        await this.client.patch(Node, { name: this.name }, 'merge', body);
        this.stage = 'idle';
        break;
      }
    }
  }
}

/** A 32-hex-digit machine ID derived from a node name (stable per name). */
export function machineIdOf(name: string): string {
  let h = 0x811c9dc5;
  const out: string[] = [];
  for (let round = 0; round < 4; round++) {
    for (const ch of `${round}:${name}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    out.push(h.toString(16).padStart(8, '0'));
  }
  return out.join('');
}
