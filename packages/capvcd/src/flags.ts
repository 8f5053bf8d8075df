/** The provider's own command-line flags (beside the runtime's standard ones). */
import { type ParseOptionsConfig, parseDuration } from '@capstan/runtime';
import type { CapvcdOptions } from './controllers.js';

type Command = Parameters<NonNullable<ParseOptionsConfig['extend']>>[0];

/** The flags as commander names them. */
export interface CapvcdFlags {
  concurrency: string;
  vcdQps: string;
  vcdBurst: string;
  vcdTimeout: string;
}

/** Adds the provider's flags (use as `parseStandardOptions`' `extend`). */
export function addCapvcdFlags(command: Command): void {
  command
    .option('--concurrency <n>', 'reconciles at once per controller', '10')
    .option('--vcd-qps <n>', 'VCD API requests per second per site', '10')
    .option('--vcd-burst <n>', 'VCD API requests in a burst per site', '20')
    .option('--vcd-timeout <duration>', 'timeout of one VCD API request', '60s');
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
  return {
    concurrency: Math.floor(positive('concurrency', flags.concurrency)),
    vcdQps: positive('vcd-qps', flags.vcdQps),
    vcdBurst: Math.floor(positive('vcd-burst', flags.vcdBurst)),
    vcdTimeoutMs: timeout,
  };
}
