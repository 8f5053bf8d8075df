/**
 * The agent's built main checks its identity before it starts: with a token bound to a pod on its
 * node it runs (and reports); with a token that names no node it exits 1 saying why, unless
 * --allow-unbound-token, where it runs and warns.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { podBoundKubeConfig } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, createPodOn, loadManifest, uniqueName } from './helpers.js';

const env = useControlPlane('agent-main');
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let admin: Client;
let node: string;
let dir: string;
let boundConfig: string;
let unboundConfig: string;

/** The agent's main for `node` with `kubeconfig`, on a sentinel file that is never there. */
function runMain(
  kubeconfig: string,
  extra: string[] = [],
): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    [
      main,
      `--kubeconfig=${kubeconfig}`,
      `--node-name=${node}`,
      '--source=file',
      `--reboot-sentinel=${join(dir, 'reboot-required')}`,
      `--os-release-path=${join(dir, 'os-release')}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  await env.plane.createObjects(loadManifest('rbac.yaml', env.namespace), { ignoreExisting: true });
  dir = mkdtempSync(join(tmpdir(), 'capstan-agent-main-'));
  writeFileSync(join(dir, 'os-release'), 'ID=flatcar\nVERSION=1.0.0\n');
  node = uniqueName('main');
  await createNode(admin, node, { bootID: `${node}-boot-1` });
  await createPodOn(admin, env.namespace, 'capstan-agent-main', node);
  boundConfig = join(dir, 'bound.kubeconfig');
  const bound = await podBoundKubeConfig(
    env.kubeConfig,
    env.namespace,
    'capstan-agent',
    'capstan-agent-main',
  );
  writeFileSync(boundConfig, bound.exportConfig(), { mode: 0o600 });
  unboundConfig = (await env.plane.serviceAccountKubeConfig(env.namespace, 'capstan-agent')).path;
});

afterAll(async () => {
  await admin?.deleteIfExists(Node, { name: node });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the agent's main and its token", () => {
  it('exits 1 and says why when the token names no node', async () => {
    const run = runMain(unboundConfig);
    expect(await run.exit).toBe(1);
    expect(run.output()).toContain("error: the agent's token");
    expect(run.output()).toContain('carries no node claim (authentication.kubernetes.io/node-name)');
    expect(run.output()).toContain('--allow-unbound-token');
  });

  it('exits 1 when the token is bound to another node than --node-name', async () => {
    const run = runMain(boundConfig, [`--node-name=${node}-elsewhere`]);
    expect(await run.exit).toBe(1);
    expect(run.output()).toContain(
      `is bound to node ${node}, but the agent was started for node ${node}-elsewhere`,
    );
  });

  it.each([
    ['a token bound to its pod on the node', () => boundConfig, [] as string[], false],
    [
      '--allow-unbound-token and a token without a node',
      () => unboundConfig,
      ['--allow-unbound-token'],
      true,
    ],
  ])('runs with %s and reports its node', async (_, config, flags, warns) => {
    const status = capstanProtocol.annotations.rebootNeeded;
    await admin.patch(Node, { name: node }, 'merge', { metadata: { annotations: { [status]: null } } });
    const run = runMain(config(), flags);
    try {
      await eventually(
        async () => (await admin.get(Node, { name: node })).metadata.annotations?.[status] === 'false',
        { what: `the agent to report (output: ${run.output()})`, timeoutMs: 20_000 },
      );
      expect(run.output().includes('running anyway (--allow-unbound-token)')).toBe(warns);
    } finally {
      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(0);
    }
  });
});
