/**
 * `capstan-envtest start`, run as a user runs it: through the committed bin launcher (what `npx`
 * links), until it prints how to reach the cluster; then kubectl's view of it through the printed
 * kubeconfig, and Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { readyStatus } from '../src/nodes.js';

const launcher = fileURLToPath(new URL('../bin/capstan-envtest.js', import.meta.url));

describe('capstan-envtest start', () => {
  it('--nodes 3 --scheduler --kwok --cluster-api prints how to reach a cluster with 3 Ready nodes; Ctrl-C stops it', async () => {
    const child = spawn(
      process.execPath,
      [launcher, 'start', '--nodes', '3', '--scheduler', '--kwok', '--cluster-api'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const ready = new Promise<void>((resolve) => {
      const onData = (d: Buffer) => {
        output += d.toString();
        if (output.includes('Press Ctrl-C')) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
    });
    await Promise.race([ready, exited]);
    expect(output).toMatch(/Control plane ready in [\d.]+ s at https:\/\/127\.0\.0\.1:\d+/);
    expect(output).toContain(
      'Running: etcd, kube-apiserver, kube-controller-manager; kube-scheduler; kwok (3 nodes); Cluster API',
    );
    const kubeconfig = /export KUBECONFIG=(\S+)/.exec(output)?.[1] as string;
    expect(existsSync(kubeconfig)).toBe(true);

    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const { items } = await kc.makeApiClient(CoreV1Api).listNode();
    expect(items).toHaveLength(3);
    for (const node of items) expect(readyStatus(node as never)).toBe('True');

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('stopping...');
    expect(existsSync(kubeconfig)).toBe(false); // its data is removed
  }, 120_000);
});
