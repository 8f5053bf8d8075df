import { type MetricsRegistry } from '@capstan/runtime/manager';

/** The manager's prom-client registry (typed through the runtime, which owns prom-client). */
type Registry = MetricsRegistry['registry'];

type Labels = Readonly<Record<string, string>>;

/**
 * A counter or gauge registered on the manager's prom-client registry. Written against the
 * registry's metric interface (`get()` returning name, help, type and values) so that the agent
 * needs no direct dependency on prom-client; the runtime owns that dependency.
 */
class SimpleMetric {
  private readonly values = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = JSON.stringify(labels);
    const entry = this.values.get(key) ?? { labels, value: 0 };
    entry.value += by;
    this.values.set(key, entry);
  }

  set(value: number, labels: Labels = {}): void {
    this.values.set(JSON.stringify(labels), { labels, value });
  }

  value(labels: Labels = {}): number {
    return this.values.get(JSON.stringify(labels))?.value ?? 0;
  }

  total(): number {
    let sum = 0;
    for (const { value } of this.values.values()) sum += value;
    return sum;
  }

  get() {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: 'sum',
      values: [...this.values.values()].map(({ labels, value }) => ({ labels: { ...labels }, value })),
    };
  }

  reset(): void {
    this.values.clear();
  }
}

/** The agent's own metrics, one set per agent (each agent has its manager's registry). */
export class AgentMetrics {
  /** 1 while the node reports `reboot-needed` true (kured's `kured_reboot_required`). */
  readonly rebootNeeded = new SimpleMetric(
    'capstan_agent_reboot_needed',
    'Whether the reboot-needed source says this node needs a reboot (1) or not (0).',
    'gauge',
  );
  /** Eviction attempts by result: `evicted`, `gone`, `blocked` (429: a disruption budget said no), `error`. */
  readonly evictions = new SimpleMetric(
    'capstan_agent_evictions_total',
    'Pod eviction attempts during drains, by result.',
    'counter',
  );
  /** Drains that timed out (the cycle was abandoned unless --force-reboot). */
  readonly drainFailures = new SimpleMetric(
    'capstan_agent_drain_failures_total',
    'Drains that did not finish within the drain timeout.',
    'counter',
  );
  /** Reboot requests logind accepted. */
  readonly reboots = new SimpleMetric(
    'capstan_agent_reboots_total',
    'Reboots requested from logind and accepted.',
    'counter',
  );
  /** Reboot requests that failed, by reason (`not-allowed`, `dbus-error`, `timeout`, `unreachable`). */
  readonly rebootFailures = new SimpleMetric(
    'capstan_agent_reboot_failures_total',
    'Reboot requests that failed, by reason.',
    'counter',
  );

  /** Registers every metric on `registry` (the manager's `metrics.registry`). */
  register(registry: Registry): void {
    for (const metric of [
      this.rebootNeeded,
      this.evictions,
      this.drainFailures,
      this.reboots,
      this.rebootFailures,
    ]) {
      registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
    }
  }
}
