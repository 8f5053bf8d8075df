#!/usr/bin/env node
/**
 * `npm run demo`: runs the end-to-end demo and exits 0 when every node rebooted onto the new
 * version with no group over its budget, 1 otherwise.
 *   node packages/demo/dist/main.js [--protocol fluo] [--reboot-seconds 10] [--plain]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageVersion } from '@capstan/runtime';
import { Command, InvalidArgumentError } from 'commander';
import { formatSummary, runDemo } from './demo.js';

const seconds = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('a number of seconds ≥ 0');
  return n;
};

const program = new Command('capstan-demo')
  .description(
    'A local control plane, the reboot coordinator and 12 update agents (each on its own D-Bus): ' +
      'every node needs a reboot, and the coordinator lets them reboot group by group within budget.',
  )
  .version(packageVersion(import.meta.url))
  .option('--protocol <name>', 'annotation protocol: capstan, or fluo (FLUO-compatible keys)', 'capstan')
  .option('--reboot-seconds <s>', 'how long each reboot keeps its node down', seconds, 10)
  .option('--timeout-seconds <s>', 'give up this long after the control plane is up', seconds, 360)
  .option('--plain', 'print one line per change instead of redrawing a table')
  .option('--log-file <path>', 'where the coordinator and agents log (JSON lines)')
  .parse();

const flags = program.opts<{
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

const summary = await runDemo({
  protocol: flags.protocol as 'capstan' | 'fluo',
  rebootDownMs: flags.rebootSeconds * 1000,
  timeoutMs: flags.timeoutSeconds * 1000,
  ...(flags.plain ? { interactive: false } : {}),
  logFile,
  signal: interrupt.signal,
});
process.stdout.write(formatSummary(summary, logFile));
process.exit(summary.ok ? 0 : 1);
