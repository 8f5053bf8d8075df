/**
 * Every state a kind's objects passed through, as watch events delivered them, with a check run
 * on each. Envtest has one etcd, so an object's resourceVersion is the etcd revision of its write:
 * it orders events across kinds (which separate watch streams do not).
 */
import type { KubeObject, ResourceType } from '@capstan/runtime';
import { SharedInformer } from '@capstan/runtime/cache';
import { HttpTransport } from '@capstan/runtime/client';

type KubeConfig = ConstructorParameters<typeof HttpTransport>[0];

/** The etcd revision of an object's last write. */
export const revisionOf = (o: KubeObject): bigint => BigInt(o.metadata.resourceVersion ?? '0');

export class EventRecord<T extends KubeObject> {
  /** The objects as each event delivered them, oldest first. */
  readonly states: T[] = [];
  private readonly transport: HttpTransport;
  private readonly informer: SharedInformer<T>;

  private constructor(
    kubeConfig: KubeConfig,
    type: ResourceType<T>,
    namespace?: string,
    onEvent?: (o: T) => void,
  ) {
    this.transport = new HttpTransport(kubeConfig);
    this.informer = new SharedInformer(this.transport, type, namespace ? { namespace } : {});
    const seen = (o: T) => {
      this.states.push(o);
      onEvent?.(o);
    };
    this.informer.addEventHandler({ onAdd: seen, onUpdate: (_old, o) => seen(o) });
  }

  /** Starts watching and waits for the first list, so nothing written after is missed. */
  static async start<T extends KubeObject>(
    kubeConfig: KubeConfig,
    type: ResourceType<T>,
    options: { namespace?: string; onEvent?: (o: T) => void } = {},
  ): Promise<EventRecord<T>> {
    const record = new EventRecord(kubeConfig, type, options.namespace, options.onEvent);
    record.informer.start();
    await record.informer.waitForSync(30_000);
    return record;
  }

  /** The first recorded state `matches` accepts. */
  find(matches: (o: T) => boolean): T | undefined {
    return this.states.find(matches);
  }

  async stop(): Promise<void> {
    await this.informer.stop();
    this.transport.close();
  }
}
