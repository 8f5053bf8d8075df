/**
 * A real Alertmanager for tests (`startAlertmanager`): one instance (clustering off), every alert
 * routed to a receiver that sends nothing, so tests read alerts and silences from its v2 API.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MonitoringOptions, type MonitoringServer, startMonitoring } from './monitoring-process.js';

/** Starts Alertmanager on 127.0.0.1 (built from the Go module proxy on first use) and waits until ready. */
export function startAlertmanager(options: MonitoringOptions = {}): Promise<MonitoringServer> {
  return startMonitoring('alertmanager', options, (listen, workDir) => {
    const configFile = join(workDir, 'alertmanager.yml');
    writeFileSync(
      configFile,
      JSON.stringify({
        route: { receiver: 'none', group_wait: '0s', group_interval: '1s' },
        receivers: [{ name: 'none' }],
      }),
    );
    return [
      `--config.file=${configFile}`,
      `--storage.path=${join(workDir, 'data')}`,
      `--web.listen-address=${listen}`,
      // An empty address turns gossip off: a lone instance, nothing else listening.
      '--cluster.listen-address=',
    ];
  });
}
