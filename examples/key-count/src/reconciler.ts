import {
  Client,
  conditionalMergePatch,
  EventRecorder,
  isNotFound,
  type Logger,
  MetricsFactory,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Tally,
} from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { MetricsRegistry } from '@capstan/runtime/manager';
import { LOGGER } from '@capstan/runtime/tsyringe';
import { inject, injectable } from 'tsyringe';

/** The label that opts a ConfigMap in, and the annotation the reconciler keeps. */
export const OPT_IN_LABEL = 'example.capstan.dev/count-keys';
export const KEYS_ANNOTATION = 'example.capstan.dev/keys';

/** The annotation a ConfigMap should carry: how many keys its data and binaryData hold. */
export const keyCount = (cm: ConfigMap): string =>
  String(Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length);

/**
 * Keeps an opted-in ConfigMap's key count in an annotation. Its constructor takes what it needs;
 * the container supplies them from the manager (the classes by their type, the logger by token).
 */
@injectable()
export class KeyCountReconciler implements Reconciler {
  private readonly written: Tally;

  constructor(
    private readonly client: Client,
    private readonly events: EventRecorder,
    @inject(LOGGER) private readonly log: Logger,
    metrics: MetricsRegistry,
  ) {
    this.written = new MetricsFactory(metrics.registry).counter({
      name: 'key_count_annotations_written_total',
      help: 'Key count annotations written',
    });
  }

  async reconcile(request: Request, _context: ReconcileContext): Promise<void> {
    let cm: ConfigMap;
    try {
      cm = await this.client.get(ConfigMap, request);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const count = keyCount(cm);
    if (cm.metadata.annotations?.[KEYS_ANNOTATION] === count) return;
    const patch = conditionalMergePatch(cm.metadata.resourceVersion, {
      annotations: { [KEYS_ANNOTATION]: count },
    });
    await this.client.patch(ConfigMap, request, 'merge', patch);
    this.written.inc();
    this.log.info({ configMap: request.name, keys: count }, 'key count written');
    this.events.record(ConfigMap, cm, {
      type: 'Normal',
      reason: 'KeysCounted',
      action: 'Annotate',
      note: `${count} keys`,
    });
  }
}
