#!/usr/bin/env node
/**
 * `npm run demo`: the mission end to end — a cluster provisioned on Cloud Director (vcdsim) by
 * Cluster API and capvcd, its operators installed by the version operator, its nodes updated by the
 * coordinator and agents — with a checked summary; exits 0 only when all of it holds.
 *   node packages/demo/dist/main.js [--only cluster|reboot] [--protocol fluo] [--reboot-seconds 5] [--plain]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageVersion } from '@capstan/runtime';
import { Command, InvalidArgumentError, Option } from 'commander';
import { runMission } from './mission.js';
import { formatSummary } from './summary.js';

const seconds = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('a number of seconds ≥ 0');
  return n;
};

const program = new Command('capstan-demo')
  .description(
    'The mission end to end: a cluster provisioned on Cloud Director (vcdsim) through Cluster API and capvcd, ' +
      'the coordinator and agents installed by the version operator, and every node updated and rebooted ' +
      'group by group within budget by the real coordinator and agents (each agent on its own D-Bus).',
  )
  .version(packageVersion(import.meta.url))
  .addOption(
    new Option(
      '--only <act>',
      'run act 1 alone (cluster), or acts 2 and 3 on a local kwok cluster (reboot)',
    ).choices(['cluster', 'reboot']),
  )
  .option('--protocol <name>', 'annotation protocol: capstan, or fluo (FLUO-compatible keys)', 'capstan')
  .option('--reboot-seconds <s>', 'how long each reboot keeps its node down', seconds, 5)
  .option('--timeout-seconds <s>', 'give up this long after the first control plane is up', seconds, 480)
  .option('--plain', 'print one line per change instead of redrawing tables')
  .option('--log-file <path>', 'where the operators log (JSON lines)')
  .parse();

const flags = program.opts<{
  only?: 'cluster' | 'reboot';
  protocol: string;
  rebootSeconds: number;
  timeoutSeconds: number;
  plain?: boolean;
  logFile?: string;
}>();
if (flags.protocol !== 'capstan' && flags.protocol !== 'fluo') {
  program.error(`error: --protocol must be capstan or fluo, not ${flags.protocol}`);
}
const logFile = flags.logFile ?? join(mkdtempSync(join(tmpdir(), 'capstan-demo-')), 'demo.log');

const interrupt = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second interrupt does not wait for the clean-up (envtest's watchdog still stops its processes).
    if (interrupt.signal.aborted) process.exit(130);
    process.stderr.write('stopping the demo (interrupt again to quit at once)...\n');
    interrupt.abort();
  });
}

const summary = await runMission({
  ...(flags.only ? { only: flags.only } : {}),
  protocol: flags.protocol as 'capstan' | 'fluo',
  rebootDownMs: flags.rebootSeconds * 1000,
  timeoutMs: flags.timeoutSeconds * 1000,
  ...(flags.plain ? { interactive: false } : {}),
  logFile,
  signal: interrupt.signal,
});
process.stdout.write(formatSummary(summary, logFile));
process.exit(summary.ok ? 0 : 1);
