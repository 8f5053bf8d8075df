/**
 * A new project from `create-capstan --tarballs <dir>`, as one tries Capstan before it is
 * published: the packages packed into a folder, the project depending on them by `file:` path,
 * installed with `npm install --prefer-offline` (no @capstan package from any registry;
 * third-party ones from npm's cache where it has them: on this machine `--offline` passes too),
 * built, its RBAC checked against its wiring
 * (`npm run gen:rbac -- --check`), and its own envtest and conformance tests passed. Needs the
 * built dist (`npm run build`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../packaging/packages.js';
import { packTarballs } from '../packaging/tarballs.js';

const work = mkdtempSync(join(tmpdir(), 'capstan-offline-'));
const project = join(work, 'offline-op');
const timings: string[] = [];
// A terminal's environment: vitest's and npm's own variables would outrank the project's settings.
const userEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(npm_|VITEST|INIT_CWD$)/i.test(k)),
);

function run(cwd: string, command: string, args: string[]): string {
  const started = Date.now();
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: 'pipe',
      env: { ...userEnv, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`"${command} ${args.join(' ')}" failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  } finally {
    timings.push(`${command} ${args.slice(0, 2).join(' ')}: ${Date.now() - started} ms`);
  }
}

beforeAll(() => {
  const tarballs = join(work, 'tarballs');
  packTarballs(['packages/runtime', 'packages/envtest', 'packages/cli'], tarballs);
  const createCapstan = join(root, 'packages/create-capstan/dist/main.js');
  run(work, process.execPath, [createCapstan, 'offline-op', '--tarballs', tarballs]);
  // --prefer-offline, not --offline: a fresh CI machine's cache (the workspace's npm ci) holds the
  // tarballs but not every package's metadata; the @capstan packages never come from a registry.
  run(project, 'npm', ['install', '--prefer-offline', '--no-audit', '--no-fund']);
}, 600_000);
afterAll(() => {
  process.stderr.write(`[scaffold-offline] ${timings.join('; ')}\n`);
  rmSync(work, { recursive: true, force: true });
});

describe('a project made from local tarballs, installed offline', () => {
  it('depends on the tarballs by file: path', () => {
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    expect(manifest.dependencies['@capstan/runtime']).toMatch(/^file:.*capstan-runtime-[\d.]+\.tgz$/);
    expect(manifest.devDependencies['@capstan/cli']).toMatch(/^file:.*capstan-cli-[\d.]+\.tgz$/);
  });

  it('builds, and its committed RBAC is what capstan gen rbac makes of its wiring', () => {
    run(project, 'npm', ['run', 'build']);
    // --check exits 1 (and run throws) when deploy/rbac.yaml is not what the wiring gives.
    const out = run(project, 'bash', ['-c', 'npm run gen:rbac -- --check 2>&1']);
    expect(out).toContain('deploy/rbac.yaml unchanged');
    expect(readFileSync(join(project, 'deploy/rbac.yaml'), 'utf8')).toContain(
      'resources: [widgets/finalizers]',
    );
  }, 300_000);

  it('passes its own envtest and conformance tests', () => {
    const out = run(project, 'npx', ['vitest', 'run']);
    expect(out).toMatch(/Test Files\s+3 passed \(3\)/);
    expect(out).toContain('widget.conformance.test.ts');
    expect(out).not.toMatch(/\bfailed\b/);
  }, 600_000);
});
