/**
 * The built Greeting main given a kubeconfig path that does not exist: one line on stderr saying
 * what is wrong and where the path came from, exit code 2, no stack (as the operators' mains do).
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mainJs } from './replica.js';

/** Runs the built main to its exit; resolves with its exit code and output. */
function run(args: string[], env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [mainJs, '--metrics-bind-address=0', '--health-probe-bind-address=0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('the greeting main with a wrong kubeconfig path', () => {
  it.each([
    [[], { KUBECONFIG: '/nonexistent/greeting-kc' }, '/nonexistent/greeting-kc (from KUBECONFIG)'],
    [['--kubeconfig=/nonexistent/kubeconfig'], {}, '/nonexistent/kubeconfig (from --kubeconfig)'],
  ])(
    'says in one line what is wrong and exits non-zero (%j %j)',
    async (args, env, where) => {
      const { code, stdout, stderr } = await run(args, env);
      expect(code).toBe(2);
      expect(stderr).toBe(`error: kubeconfig: ${where} does not exist\n`);
      expect(stdout).toBe('');
    },
    30_000,
  );
});
