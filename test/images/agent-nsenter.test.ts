/**
 * The agent's image carries nsenter (and the libraries it links) for the opt-in host-namespace
 * source and the command reboot method: the distroless base has none, so the Dockerfile copies it
 * from the build stage. Run here as the image's own binary, with no shell in the image.
 */
import { execFileSync } from 'node:child_process';
import { beforeAll, expect, it } from 'vitest';
import { build, type ImageUnderTest } from './fixture.js';
import { imageName } from './podman.js';

const agent: ImageUnderTest = {
  tag: imageName('agent'),
  dockerfile: 'packages/agent/Dockerfile',
  manifest: 'packages/agent/deploy/daemonset.yaml',
};

beforeAll(() => build(agent), 900_000);

it('runs /usr/bin/nsenter from the agent image, which has no shell', () => {
  const run = (entrypoint: string, args: string[]) =>
    execFileSync(
      'podman',
      [
        '--runtime',
        'runc',
        'run',
        '--rm',
        '--ulimit',
        'nofile=1024:1024',
        '--ulimit',
        'nproc=1024:1024',
        '--network',
        'none',
        '--entrypoint',
        entrypoint,
        agent.tag,
        ...args,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  expect(run('/usr/bin/nsenter', ['--version'])).toMatch(/nsenter from util-linux/);
  expect(() => run('/bin/sh', ['-c', 'true'])).toThrow();
}, 120_000);
