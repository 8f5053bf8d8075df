/** The provider's command line: the runtime's standard flags and its own. */
import { readFileSync } from 'node:fs';
import {
  type CommandLine,
  type ParseOptionsConfig,
  packageVersion,
  parseCommandLine,
  parseDuration,
} from '@capstan/runtime';
import { CAPVCD_MANAGER } from './manager-name.js';
import type { CapvcdOptions } from './operator.js';

type Command = Parameters<NonNullable<ParseOptionsConfig['extend']>>[0];

/** The flags as commander names them. */
export interface CapvcdFlags {
  concurrency: string;
  vcdQps: string;
  vcdBurst: string;
  vcdTimeout: string;
  vmDriftPeriod: string;
  vcdCaBundle?: string;
  conversionWebhook: boolean;
}

/** Adds the provider's flags (use as `parseStandardOptions`' `extend`). */
export function addCapvcdFlags(command: Command): void {
  command
    .option('--concurrency <n>', 'reconciles at once per controller', '10')
    .option('--vcd-qps <n>', 'VCD API requests per second per site', '10')
    .option('--vcd-burst <n>', 'VCD API requests in a burst per site', '20')
    .option('--vcd-timeout <duration>', 'timeout of one VCD API request', '60s')
    .option(
      '--vm-drift-period <duration>',
      "how often each provisioned machine's VM is read again (powered back on when found off); 0 switches it off",
      '5m',
    )
    .option(
      '--conversion-webhook',
      "serve the conversion of CAPVCD's v1beta2 and v1beta1 objects (needs --webhook-cert-dir's certificate)",
      false,
    )
    .option(
      '--vcd-ca-bundle <file>',
      "PEM CA certificates to verify VCD sites with when the credentials Secret has no ca.crt (default: the system's roots)",
    );
}

/** @throws Error naming the flag when a value is unusable. */
export function capvcdOptionsFromFlags(flags: CapvcdFlags): CapvcdOptions {
  const positive = (name: string, raw: string) => {
    const n = Number(raw);
    if (!(n > 0) || !Number.isFinite(n)) throw new Error(`--${name} must be a positive number, got "${raw}"`);
    return n;
  };
  const timeout = parseDuration(flags.vcdTimeout);
  if (!(timeout > 0)) throw new Error(`--vcd-timeout must be a positive duration, got "${flags.vcdTimeout}"`);
  const drift = parseDuration(flags.vmDriftPeriod);
  if (!(drift >= 0))
    throw new Error(`--vm-drift-period must be a duration (0 for off), got "${flags.vmDriftPeriod}"`);
  return {
    concurrency: Math.floor(positive('concurrency', flags.concurrency)),
    driftPeriodMs: drift,
    vcdQps: positive('vcd-qps', flags.vcdQps),
    vcdBurst: Math.floor(positive('vcd-burst', flags.vcdBurst)),
    vcdTimeoutMs: timeout,
    conversionWebhook: flags.conversionWebhook === true,
    ...(flags.vcdCaBundle !== undefined ? { vcdCaPem: readCaBundle(flags.vcdCaBundle) } : {}),
  };
}

/** The bundle's text. @throws Error naming the flag when it is unreadable or holds no certificate. */
function readCaBundle(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `--vcd-ca-bundle ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error(`--vcd-ca-bundle ${path} holds no PEM certificate`);
  return pem;
}

/** main's command line parsed: the standard options and the provider's. */
export type CapvcdCommandLine = CommandLine<CapvcdOptions>;

/**
 * Parses main's arguments (without node and the script), as the Deployment passes them.
 * `--help` and usage errors go through `exit` (default `process.exit`).
 * @throws Error naming the flag when a provider flag's value is unusable.
 */
export function parseCapvcdArgs(
  argv: readonly string[],
  io: Pick<ParseOptionsConfig, 'exit' | 'output'> = {},
): CapvcdCommandLine {
  return parseCommandLine<CapvcdFlags, CapvcdOptions>(argv, {
    name: CAPVCD_MANAGER,
    version: packageVersion(import.meta.url),
    description: 'Cluster API infrastructure provider for VMware Cloud Director.',
    defaults: { leaderElectionId: CAPVCD_MANAGER },
    extend: addCapvcdFlags,
    options: capvcdOptionsFromFlags,
    ...io,
  });
}
