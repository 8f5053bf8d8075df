#!/usr/bin/env node
/**
 * The provider's main: standard flags (leader election, metrics, probes, namespace) + provider
 * flags → manager → the VCDCluster and VCDMachine controllers → run until SIGTERM.
 *   node dist/main.js --leader-elect --leader-election-namespace capvcd-system --concurrency 10
 */
import {
  Manager,
  managerOptionsFromFlags,
  packageVersion,
  parseStandardOptions,
  runManager,
} from '@capstan/runtime';
import { EVENT_SOURCE } from './api/keys.js';
import { addCapvcd } from './controllers.js';
import { addCapvcdFlags, type CapvcdFlags, capvcdOptionsFromFlags } from './flags.js';

const { standard, extra } = parseStandardOptions<CapvcdFlags>(process.argv.slice(2), {
  name: 'capstan-capvcd',
  version: packageVersion(import.meta.url),
  description: 'Cluster API infrastructure provider for VMware Cloud Director.',
  defaults: { leaderElectionId: 'capstan-capvcd' },
  extend: addCapvcdFlags,
});
let options: ReturnType<typeof capvcdOptionsFromFlags>;
try {
  options = capvcdOptionsFromFlags(extra);
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n(run with --help for usage)\n`);
  process.exit(2);
}
const manager = Manager.create({
  ...managerOptionsFromFlags(standard),
  eventSource: EVENT_SOURCE,
  fieldManager: 'capstan-capvcd',
});
const handle = addCapvcd(manager, options);
await runManager(manager);
handle.connections.close();
