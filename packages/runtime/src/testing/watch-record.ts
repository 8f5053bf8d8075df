/**
 * Every state a kind's objects pass through, as watch events deliver them: for tests on a real
 * API server that must see a state too short-lived to be sure of catching by polling (a condition
 * written and overwritten on the next try, a node down for a moment), or that check each state.
 */

import type { KubeObject, ResourceType } from '../api/types.js';
import { SharedInformer } from '../cache/shared-informer.js';
import { HttpTransport } from '../transport/http-transport.js';

/** What {@link HttpTransport} connects with. */
type KubeConfig = ConstructorParameters<typeof HttpTransport>[0];

/** Options of {@link WatchRecord.start}. */
export interface WatchRecordOptions<T extends KubeObject> {
  /** Watch one namespace (default: all). */
  namespace?: string;
  /** Called with each state as it is recorded. */
  onEvent?: (object: T) => void;
}

/** A watch of one kind that keeps every state it delivers (adds and updates), oldest first. */
export class WatchRecord<T extends KubeObject> {
  /** The objects as each event delivered them, oldest first. */
  readonly states: T[] = [];
  private readonly transport: HttpTransport;
  private readonly informer: SharedInformer<T>;

  private constructor(kubeConfig: KubeConfig, type: ResourceType<T>, options: WatchRecordOptions<T>) {
    this.transport = new HttpTransport(kubeConfig);
    this.informer = new SharedInformer(
      this.transport,
      type,
      options.namespace ? { namespace: options.namespace } : {},
    );
    const seen = (o: T) => {
      this.states.push(o);
      options.onEvent?.(o);
    };
    this.informer.addEventHandler({ onAdd: seen, onUpdate: (_old, o) => seen(o) });
  }

  /** Starts watching and waits for the first list, so nothing written after it returns is missed. */
  static async start<T extends KubeObject>(
    kubeConfig: KubeConfig,
    type: ResourceType<T>,
    options: WatchRecordOptions<T> = {},
  ): Promise<WatchRecord<T>> {
    const record = new WatchRecord(kubeConfig, type, options);
    record.informer.start();
    await record.informer.waitForSync(30_000);
    return record;
  }

  /** The first recorded state `matches` accepts. */
  find(matches: (o: T) => boolean): T | undefined {
    return this.states.find(matches);
  }

  /** Stops the watch and closes its connections. */
  async stop(): Promise<void> {
    await this.informer.stop();
    this.transport.close();
  }
}
