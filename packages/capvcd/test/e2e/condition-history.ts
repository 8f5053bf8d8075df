/**
 * Every state the VCDMachines of a namespace passed through, from a watch. A condition the
 * provider writes and then overwrites on its next try (a failed task, retried) can come and go
 * between two polls of the current objects; each status write is a watch event, so here it stays.
 */
import { type VCDMachine, VCDMachineType } from '@capstan/capvcd';
import { SharedInformer } from '@capstan/runtime/cache';
import { HttpTransport } from '@capstan/runtime/client';

type KubeConfig = ConstructorParameters<typeof HttpTransport>[0];

export class ConditionHistory {
  /** The VCDMachines as each watch event delivered them, oldest first. */
  readonly states: VCDMachine[] = [];
  private readonly transport: HttpTransport;
  private readonly informer: SharedInformer<VCDMachine>;

  private constructor(kubeConfig: KubeConfig, namespace: string) {
    this.transport = new HttpTransport(kubeConfig);
    this.informer = new SharedInformer(this.transport, VCDMachineType, { namespace });
    this.informer.addEventHandler({
      onAdd: (m) => {
        this.states.push(m);
      },
      onUpdate: (_old, m) => {
        this.states.push(m);
      },
    });
  }

  /** Starts watching `namespace` and waits for the first list, so nothing written after is missed. */
  static async start(kubeConfig: KubeConfig, namespace: string): Promise<ConditionHistory> {
    const history = new ConditionHistory(kubeConfig, namespace);
    history.informer.start();
    await history.informer.waitForSync(30_000);
    return history;
  }

  /** The first recorded state `matches` accepts. */
  find(matches: (m: VCDMachine) => boolean): VCDMachine | undefined {
    return this.states.find(matches);
  }

  async stop(): Promise<void> {
    await this.informer.stop();
    this.transport.close();
  }
}

/** A VCDMachine's conditions in one line, as the tests match and print them. */
export const conditionText = (m: VCDMachine) =>
  (m.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message}`).join('; ');
