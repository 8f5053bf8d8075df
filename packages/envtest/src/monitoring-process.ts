/**
 * What Prometheus and Alertmanager share as envtest runs them: a work folder, a free loopback
 * port, the binary from {@link resolveTool}, and a wait for `/-/ready` that fails with the log.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpOk } from './http.js';
import { freePort } from './ports.js';
import { ManagedProcess } from './process.js';
import { resolveTool, type ToolName } from './tools.js';
import { waitFor } from './wait.js';

/** Options both monitoring helpers take. */
export interface MonitoringOptions {
  /** Folder for its configuration, data and log; default a new temporary folder. */
  workDir?: string;
  /** The binary; default {@link resolveTool} (its `CAPSTAN_*_BINARY`, the cache, or built now). */
  binary?: string;
  /** How long to wait for `/-/ready`; default 60 s. */
  readyTimeoutMs?: number;
}

/** A running monitoring program on 127.0.0.1. */
export interface MonitoringServer {
  /** Its base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Its work folder (configuration, data, `<name>.log`). */
  workDir: string;
  /** Stops it (SIGTERM, then SIGKILL). */
  stop(): Promise<void>;
}

/** Starts `tool` with the args `argsFor(port, workDir)` gives and waits for it to be ready. */
export async function startMonitoring(
  tool: Extract<ToolName, 'prometheus' | 'alertmanager'>,
  options: MonitoringOptions,
  argsFor: (listen: string, workDir: string) => string[],
): Promise<MonitoringServer> {
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), `capstan-${tool}-`));
  const binary = options.binary ?? (await resolveTool(tool));
  const port = await freePort();
  const proc = ManagedProcess.start(
    tool,
    binary,
    argsFor(`127.0.0.1:${port}`, workDir),
    join(workDir, `${tool}.log`),
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(tool, proc, options.readyTimeoutMs ?? 60_000, () => httpOk(`${url}/-/ready`));
  } catch (err) {
    await proc.stop(1_000);
    throw err;
  }
  return { url, workDir, stop: () => proc.stop() };
}
