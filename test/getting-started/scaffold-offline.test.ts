/**
 * A new project from `create-capstan --tarballs <dir>`, as one tries Capstan before it is
 * published: the packages packed into a folder, the project depending on them by `file:` path,
 * installed with `npm install --prefer-offline` (no @capstan package from any registry;
 * third-party ones from npm's cache where it has them: on this machine `--offline` passes too),
 * built, its RBAC checked against its wiring
 * (`npm run gen:rbac -- --check`), and its own envtest and conformance tests passed. Needs the
 * built dist (`npm run build`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../packaging/packages.js';
import { packTarballs } from '../packaging/tarballs.js';
import { userCommand } from '../packaging/user-commands.js';

const work = mkdtempSync(join(tmpdir(), 'capstan-offline-'));
const project = join(work, 'offline-op');
const timings: string[] = [];
const run = userCommand(timings);

beforeAll(() => {
  const tarballs = join(work, 'tarballs');
  packTarballs(['packages/runtime', 'packages/envtest', 'packages/cli'], tarballs);
  const createCapstan = join(root, 'packages/create-capstan/dist/main.js');
  run(work, process.execPath, [createCapstan, 'offline-op', '--tarballs', tarballs], 'create-capstan');
  // --prefer-offline, not --offline: a fresh CI machine's cache (the workspace's npm ci) holds the
  // tarballs but not every package's metadata; the @capstan packages never come from a registry.
  run(project, 'npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], 'npm install');
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
    run(project, 'npm', ['run', 'build'], 'npm run build');
    // --check exits 1 (and run throws) when deploy/rbac.yaml is not what the wiring gives.
    const out = run(project, 'bash', ['-c', 'npm run gen:rbac -- --check 2>&1'], 'gen:rbac --check');
    expect(out).toContain('deploy/rbac.yaml unchanged');
    expect(readFileSync(join(project, 'deploy/rbac.yaml'), 'utf8')).toContain(
      'resources: [widgets/finalizers]',
    );
  }, 300_000);

  it('passes its own envtest and conformance tests', () => {
    const out = run(project, 'npx', ['vitest', 'run'], 'npx vitest');
    expect(out).toMatch(/Test Files\s+3 passed \(3\)/);
    expect(out).toContain('widget.conformance.test.ts');
    expect(out).not.toMatch(/\bfailed\b/);
  }, 600_000);
});
