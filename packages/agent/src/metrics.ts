/** The agent's metrics, made by the runtime's {@link MetricsFactory} on the manager's registry. */
import { MetricsFactory, type Tally } from '@capstan/runtime';
import type { MetricsRegistry } from '@capstan/runtime/manager';

/** The agent's own metrics, one set per agent (each agent has its manager's registry). */
export class AgentMetrics {
  /** 1 while the node reports `reboot-needed` true (kured's `kured_reboot_required`). */
  readonly rebootNeeded: Tally;
  /** 1 while the reboot-needed source cannot tell (its last answer stands meanwhile). */
  readonly sourceError: Tally;
  /** 1 while the node is quarantined for a reboot loop (until an administrator clears it). */
  readonly quarantined: Tally;
  /** Eviction attempts by result: `evicted`, `gone`, `blocked` (429: a disruption budget said no), `error`. */
  readonly evictions: Tally<'result'>;
  /** Drains that timed out (the cycle was abandoned unless --force-reboot). */
  readonly drainFailures: Tally;
  /** Reboots after which the node booted another OS version than the one it rebooted for. */
  readonly versionMismatches: Tally;
  /** Reboot requests logind accepted. */
  readonly reboots: Tally;
  /** Reboot requests that failed, by reason (`not-allowed`, `dbus-error`, `timeout`, `unreachable`). */
  readonly rebootFailures: Tally<'reason'>;

  /** Makes the metrics on `registry` (the manager's `metrics.registry`). */
  constructor(registry: MetricsRegistry['registry']) {
    const metrics = new MetricsFactory(registry);
    this.rebootNeeded = metrics.gauge({
      name: 'capstan_agent_reboot_needed',
      help: 'Whether the reboot-needed source says this node needs a reboot (1) or not (0).',
    });
    this.sourceError = metrics.gauge({
      name: 'capstan_agent_source_error',
      help: 'Whether the reboot-needed source cannot tell now (1: not mounted, not running, failing) or can (0).',
    });
    this.quarantined = metrics.gauge({
      name: 'capstan_agent_quarantined',
      help: 'Whether the node is quarantined for a reboot loop (1) and asks for no reboot until an administrator clears it.',
    });
    this.evictions = metrics.counter({
      name: 'capstan_agent_evictions_total',
      help: 'Pod eviction attempts during drains, by result.',
      labelNames: ['result'],
    });
    this.drainFailures = metrics.counter({
      name: 'capstan_agent_drain_failures_total',
      help: 'Drains that did not finish within the drain timeout.',
    });
    this.versionMismatches = metrics.counter({
      name: 'capstan_agent_version_mismatches_total',
      help: 'Reboots after which os-release named another version than the one the node rebooted for.',
    });
    this.reboots = metrics.counter({
      name: 'capstan_agent_reboots_total',
      help: 'Reboots requested through the reboot method (logind, a host command or a signal) and accepted.',
    });
    this.rebootFailures = metrics.counter({
      name: 'capstan_agent_reboot_failures_total',
      help: 'Reboot requests that failed, by reason.',
      labelNames: ['reason'],
    });
  }
}
