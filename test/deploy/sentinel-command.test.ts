/**
 * The sentinel commands the chart's examples render, parsed by the agent's own flags and run by its
 * command source (no shell) against a stand-in for the host's program: the node needs a reboot
 * exactly when the program exits with the code the example names, not when it exits 0, and any
 * other code is an error ("cannot look"), never "no reboot needed". (On a node the agent runs the
 * same command through nsenter in PID 1's namespaces; here in place, with the example's
 * `hostNamespaces` set false.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStandardOptions } from '@capstan/runtime';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentFlags, addAgentFlags, sourceFromFlags } from '../../packages/agent/src/flags.js';
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

/** The agent's flags the chart renders for an example, run in place rather than on the host. */
async function renderedFlags(example: string): Promise<AgentFlags> {
  const objects = await renderChart('capstan-system', `deploy/helm/capstan/examples/${example}`, {
    agent: { source: { sentinelCommand: { hostNamespaces: false } }, config: { 'sentinel-interval': '1h' } },
  });
  const args = container(objects, 'DaemonSet', 'capstan-agent').args;
  return parseStandardOptions<AgentFlags>(args, {
    name: 'capstan-agent',
    extend: addAgentFlags,
    exit: (code) => {
      throw new Error(`capstan-agent ${args.join(' ')}: exit ${code}`);
    },
  }).extra;
}

/** One answer of the agent's source for those flags. */
async function firstStatus(flags: AgentFlags): Promise<SourceStatus> {
  const source = sourceFromFlags(flags);
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
  it(`reboot needed exactly when the host's program exits ${neededCode}, not needed on 0, else an error`, async () => {
    const flags = await renderedFlags(example);
    expect(flags.sentinelHostNamespaces).toBe(false);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant(neededCode), fc.constant(0), fc.integer({ min: 0, max: 255 })),
        async (code) => {
          writeFileSync(codeFile, String(code));
          const status = await firstStatus(flags);
          if (code === neededCode || code === 0) {
            expect(status.error).toBeUndefined();
            expect(status.rebootNeeded).toBe(code === neededCode);
          } else {
            expect(status.error).toContain(`exited ${code}`);
            expect(status.rebootNeeded).toBe(false);
          }
        },
      ),
      { numRuns: 20 },
    );
  });

  it('a host without the program is an error, never "no reboot needed" taken as an answer', async () => {
    const flags = await renderedFlags(example);
    process.env.PATH = savedPath;
    try {
      const status = await firstStatus(flags);
      expect(status.error).toMatch(/failed to run|exited 127/);
    } finally {
      process.env.PATH = `${bin}:${savedPath}`;
    }
  });
});
