/**
 * useControlPlane() in a project whose vitest config lacks envtest's global setup: the file starts
 * a control plane of its own, its test runs on it, and the plane is stopped afterwards.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'capstan-own-plane-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('starts a plane of its own without the global setup, and stops it after the file', () => {
  const out = join(dir, 'pids.json');
  const config = 'packages/envtest/test/fixtures/own-plane.vitest.config.ts';
  const output = execFileSync('npx', ['vitest', 'run', '--config', config], {
    cwd: root,
    encoding: 'utf8',
    stdio: 'pipe',
    env: { ...process.env, CAPSTAN_FIXTURE_OUT: out, NO_COLOR: '1' },
  });
  expect(output).toMatch(/Tests\s+1 passed \(1\)/);
  const pids = JSON.parse(readFileSync(out, 'utf8')) as number[];
  expect(pids.length).toBeGreaterThanOrEqual(2);
  expect(pids.filter(alive)).toEqual([]);
}, 300_000);
