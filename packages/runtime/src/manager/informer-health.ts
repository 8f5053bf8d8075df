/**
 * The informers' health, as readiness and metrics: not only the first sync (the `informers-synced`
 * check) but a watch failing for longer than a threshold, which leaves a synced cache silently
 * stale. Everything is computed when asked (a probe, a scrape): nothing per watch event.
 */
import type { InformerCache } from '../cache/informer-cache.js';
import { Gauge } from '../metrics/prom-classes.js';
import type { MetricsRegistry } from './metrics-registry.js';
import type { ProbesServer } from './probes-server.js';

/** Registers the `informers-synced` check, one check per informer, and the informer gauges. */
export class InformerHealthChecks {
  private readonly registered = new Set<string>();

  constructor(
    private readonly cache: InformerCache,
    private readonly probes: ProbesServer,
    metrics: MetricsRegistry,
    private readonly failureThresholdMs: number,
  ) {
    probes.addReadyCheck('informers-synced', () => {
      const unserved = cache.unserved().join(', ');
      if (unserved) throw new Error(`waiting for kinds not served (CRD not installed?): ${unserved}`);
      if (!cache.hasSynced()) throw new Error('caches have not synced yet');
      return true;
    });
    const health = () => cache.health();
    new Gauge({
      name: 'capstan_informer_synced',
      help: 'Whether the informer holds its first complete list (1) or not yet (0).',
      labelNames: ['informer'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const h of health()) this.set({ informer: h.informer }, h.synced ? 1 : 0);
      },
    });
    new Gauge({
      name: 'capstan_informer_watch_failing_seconds',
      help: 'How long the informer’s lists and watches have failed without a success between (0: healthy).',
      labelNames: ['informer'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const h of health()) this.set({ informer: h.informer }, h.failingForMs / 1000);
      },
    });
  }

  /**
   * Adds an `informer-<what it watches>` readiness check (e.g. `informer-configmaps-namespace-ops`) for every informer not checked yet: it
   * fails while that informer's watch has failed for longer than the threshold.
   */
  registerInformers(): void {
    for (const { informer } of this.cache.health()) {
      if (this.registered.has(informer)) continue;
      this.registered.add(informer);
      const name = `informer-${informer.replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/-+$/, '')}`;
      this.probes.addReadyCheck(name, () => {
        const now = this.cache.health().find((h) => h.informer === informer);
        if (now && now.failingForMs > this.failureThresholdMs)
          throw new Error(`its watch has failed for ${Math.round(now.failingForMs / 1000)} s`);
        return true;
      });
    }
  }
}
