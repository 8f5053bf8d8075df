/**
 * The sentinel commands the chart's examples render, run by the agent's own command source (its
 * flag parsing and its spawn, no shell of its own) against a stand-in for the host's program: the
 * node needs a reboot exactly when the program exits with the code the example names, whatever
 * else it does. (On a node nsenter runs the same command in the host's mount namespace; here it
 * runs in place, with the chart's `nsenter` value empty.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentFlags, sourceFromFlags } from '../../packages/agent/src/flags.js';
import type { SourceStatus } from '../../packages/agent/src/sources/source.js';
import { container, renderChart } from './chart.js';
import { buildTools, TOOLS_BUILD_MS } from './tools.js';

beforeAll(buildTools, TOOLS_BUILD_MS);

const bin = mkdtempSync(join(tmpdir(), 'host-bin-'));
const codeFile = join(bin, 'exit-code');
const savedPath = process.env.PATH;
beforeAll(() => {
  // The host's programs: each exits with the code the test writes, and prints, as the real ones do.
  for (const program of ['needs-restarting', 'rpm-ostree'])
    writeFileSync(join(bin, program), `#!/bin/sh\necho "$0 $*"\nexit "$(cat ${codeFile})"\n`, {
      mode: 0o755,
    });
  process.env.PATH = `${bin}:${savedPath}`;
});
afterAll(() => {
  process.env.PATH = savedPath;
});

/** The command the chart renders for an example, without the nsenter prefix. */
async function renderedCommand(example: string): Promise<string> {
  const objects = await renderChart('capstan-system', `deploy/helm/capstan/examples/${example}`, {
    agent: { source: { sentinelCommand: { nsenter: '' } } },
  });
  const flag = container(objects, 'DaemonSet', 'capstan-agent').args.find((a) =>
    a.startsWith('--reboot-sentinel-command='),
  );
  return (flag as string).slice('--reboot-sentinel-command='.length);
}

/** One answer of the agent's source for that command. */
async function firstStatus(command: string): Promise<SourceStatus> {
  const source = sourceFromFlags({
    source: 'command',
    rebootSentinelCommand: command,
    sentinelInterval: '1h',
  } as AgentFlags);
  let status: SourceStatus | undefined;
  await source.start((s) => {
    status = s;
  });
  await source.stop();
  return status as SourceStatus;
}

describe.each([
  ['rhel.yaml', 1],
  ['fedora-coreos.yaml', 77],
])('examples/%s', (example, neededCode) => {
  it(`reboot needed exactly when the host's program exits ${neededCode}`, async () => {
    const command = await renderedCommand(example);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant(neededCode), fc.constant(0), fc.integer({ min: 0, max: 255 })),
        async (code) => {
          writeFileSync(codeFile, String(code));
          const status = await firstStatus(command);
          expect(status.error).toBeUndefined();
          expect(status.rebootNeeded).toBe(code === neededCode);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('a host without the program never asks for a reboot', async () => {
    const command = await renderedCommand(example);
    process.env.PATH = savedPath;
    try {
      expect((await firstStatus(command)).rebootNeeded).toBe(false);
    } finally {
      process.env.PATH = `${bin}:${savedPath}`;
    }
  });
});
