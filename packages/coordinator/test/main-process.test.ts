/**
 * The built coordinator as an operator runs it, against an API server that is not there: it stays
 * up retrying (metrics and probes off, nothing else listening), stops at once on SIGTERM before
 * its caches synced, and says in one line what is wrong with a kubeconfig path.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@capstan/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-main-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${await freePort()}` } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    [main, '--metrics-bind-address=0', '--health-probe-bind-address=0', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    },
  );
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exit, output: () => ({ stdout, stderr }) };
}

describe('the coordinator process', () => {
  it('keeps retrying an unreachable API server, and stops promptly on SIGTERM before its caches sync', async () => {
    const p = run([`--kubeconfig=${kubeconfig}`]);
    // It has retried (the reflector logs each failure) and is still running, not exited 13.
    const retried = await Promise.race([
      p.exit.then(() => 'exited' as const),
      (async () => {
        while ((p.output().stdout.match(/reflector failed/g) ?? []).length < 4)
          await new Promise((r) => setTimeout(r, 100));
        return 'retrying' as const;
      })(),
    ]);
    expect(retried, p.output().stdout.slice(-500)).toBe('retrying');
    expect(p.child.exitCode).toBeNull();
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
    // Nothing was in flight, so it did not wait for the graceful timeout.
    expect(p.output().stdout).not.toContain('graceful shutdown timed out');
  }, 30_000);

  it.each([
    [
      ['--kubeconfig=/nonexistent/kubeconfig'],
      {},
      'kubeconfig: /nonexistent/kubeconfig (from --kubeconfig) does not exist',
    ],
    [[], { KUBECONFIG: '/nonexistent/kc' }, 'kubeconfig: /nonexistent/kc (from KUBECONFIG) does not exist'],
  ])('says in one line what is wrong with a kubeconfig path (%j %j)', async (args, env, line) => {
    const p = run(args, env);
    expect(await p.exit).toBe(2);
    expect(p.output().stderr).toBe(`error: ${line}\n`);
  });
});
