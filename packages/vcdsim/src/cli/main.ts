#!/usr/bin/env node
/**
 * `capstan-vcdsim --seed seed.yaml --port N`: runs the simulator on real time, printing one line
 * per request. `--ca-out FILE` writes the CA certificate clients must trust; `--http` serves plain HTTP.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SeedError } from '../seed/load.js';
import { startVcdSim } from '../start.js';

/** This package's version, for `--version`. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

const USAGE = `Usage: capstan-vcdsim [--seed FILE] [--port N] [--host ADDR] [--http] [--ca-out FILE] [--san NAME]
                      [--task-latency MS] [--boot-delay MS] [--token-lifetime S]
  --seed            seed YAML (default: the sample seed shipped with the package)
  --port            port to listen on (default 8443; 0 picks a free one)
  --host            address to listen on (default 127.0.0.1)
  --http            serve plain HTTP instead of HTTPS
  --ca-out          write the CA certificate (PEM) to this file
  --san NAME        an extra name or address for the server certificate (repeatable)
  --task-latency    task duration in ms (default 500)
  --boot-delay      ms from power-on to guest boot (default 2000)
  --token-lifetime  access token lifetime in seconds (default 1800)`;

function num(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number, not "${v}"`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      http: { type: 'boolean' },
      'ca-out': { type: 'string' },
      san: { type: 'string', multiple: true },
      'task-latency': { type: 'string' },
      'boot-delay': { type: 'string' },
      'token-lifetime': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'V' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values.version) {
    console.log(packageVersion());
    return;
  }
  const seed = values.seed ?? fileURLToPath(new URL('../../seeds/sample.yaml', import.meta.url));
  const sim = await startVcdSim({
    seed,
    port: num('port', values.port, 8443),
    host: values.host ?? '127.0.0.1',
    tls: !values.http,
    tlsHosts: values.san ?? [],
    taskLatencyMs: num('task-latency', values['task-latency'], 500),
    bootDelayMs: num('boot-delay', values['boot-delay'], 2000),
    tokenLifetimeMs: num('token-lifetime', values['token-lifetime'], 1800) * 1000,
    log: (line) => console.log(line),
  });
  if (values['ca-out']) writeFileSync(values['ca-out'], sim.caPem);
  console.log(
    `vcdsim serving ${sim.url} (seed ${seed})${values['ca-out'] ? `; CA in ${values['ca-out']}` : ''}`,
  );
  const stop = () => {
    sim.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e: unknown) => {
  console.error(e instanceof SeedError ? e.message : `capstan-vcdsim: ${(e as Error).message}\n${USAGE}`);
  process.exit(2);
});
