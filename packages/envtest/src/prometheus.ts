/**
 * A real Prometheus for tests (`startPrometheus`): it scrapes the given loopback targets, evaluates
 * the given alerting and recording rules, and sends alerts to an Alertmanager, every `intervalMs`.
 * The configuration is JSON (valid YAML) written into its work folder.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MonitoringOptions, type MonitoringServer, startMonitoring } from './monitoring-process.js';

/** One Prometheus rule (see Prometheus's rule file format). */
export interface PrometheusRule {
  /** An alerting rule's name (set this or `record`). */
  alert?: string;
  /** A recording rule's metric name. */
  record?: string;
  expr: string;
  /** How long the expression must hold before the alert fires, e.g. `0s`. */
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Options of {@link startPrometheus}. */
export interface PrometheusOptions extends MonitoringOptions {
  /** `host:port` targets scraped at `/metrics` under the job `test`. */
  scrapeTargets?: string[];
  /** Rules, evaluated in one group. */
  rules?: PrometheusRule[];
  /** Base URL of the Alertmanager that receives firing alerts. */
  alertmanagerUrl?: string;
  /** Scrape and evaluation interval; default 1000 ms. */
  intervalMs?: number;
}

/** Starts Prometheus on 127.0.0.1 (built from the Go module proxy on first use) and waits until ready. */
export function startPrometheus(options: PrometheusOptions = {}): Promise<MonitoringServer> {
  const interval = `${options.intervalMs ?? 1000}ms`;
  return startMonitoring('prometheus', options, (listen, workDir) => {
    const rulesFile = join(workDir, 'rules.yml');
    writeFileSync(rulesFile, JSON.stringify({ groups: [{ name: 'test', rules: options.rules ?? [] }] }));
    const config = {
      global: { scrape_interval: interval, evaluation_interval: interval, scrape_timeout: interval },
      rule_files: [rulesFile],
      scrape_configs: [
        {
          job_name: 'test',
          // A bare test server may send no Content-Type: read it as the text format.
          fallback_scrape_protocol: 'PrometheusText0.0.4',
          static_configs: [{ targets: options.scrapeTargets ?? [] }],
        },
      ],
      ...(options.alertmanagerUrl
        ? {
            alerting: {
              alertmanagers: [{ static_configs: [{ targets: [new URL(options.alertmanagerUrl).host] }] }],
            },
          }
        : {}),
    };
    const configFile = join(workDir, 'prometheus.yml');
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    return [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(workDir, 'data')}`,
      `--web.listen-address=${listen}`,
      '--storage.tsdb.retention.time=1h',
    ];
  });
}
