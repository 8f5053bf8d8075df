/**
 * Every program a package installs (`bin`) answers `--version` with its package's version and
 * `--help` with its usage; the DaemonSet's agent offers no leader election flags. Runs the built
 * dist, as `npx <bin>` would.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPackageJson, root, workspaceFolders } from './packages.js';

const bins = workspaceFolders().flatMap((dir) => {
  const pkg = readPackageJson(dir);
  return Object.entries(pkg.bin ?? {}).map(([name, path]) => ({ dir, name, path, version: pkg.version }));
});
const run = (dir: string, path: string, arg: string) =>
  execFileSync(process.execPath, [join(root, dir, path), arg], { encoding: 'utf8', timeout: 30_000 });

describe('the installed programs', () => {
  it('include the operators, envtest, the demo and the example', () => {
    expect(bins.map((b) => b.name).sort()).toEqual([
      'capstan',
      'capstan-agent',
      'capstan-capvcd',
      'capstan-coordinator',
      'capstan-demo',
      'capstan-envtest',
      'capstan-vcdsim',
      'capstan-version-operator',
      'create-capstan',
      'greeting-controller',
    ]);
  });

  it.each(bins)('$name --version prints $version', ({ dir, path, version }) => {
    expect(run(dir, path, '--version').trim()).toBe(version);
  });

  it.each(bins)('$name --help prints its usage', ({ dir, name, path }) => {
    expect(run(dir, path, '--help')).toContain(`Usage: ${name}`);
  });

  // The operators and the example: a wrong kubeconfig is the user's to fix, one line says so.
  const operators = bins.filter((b) =>
    [
      'capstan-agent',
      'capstan-capvcd',
      'capstan-coordinator',
      'capstan-version-operator',
      'greeting-controller',
    ].includes(b.name),
  );
  it.each(operators)(
    '$name with a KUBECONFIG that does not exist: one line on stderr, exit 2',
    ({ dir, name, path }) => {
      const missing = '/nonexistent/capstan/kubeconfig';
      const r = spawnSync(
        process.execPath,
        [join(root, dir, path), ...(name === 'capstan-agent' ? ['--node-name=n1'] : [])],
        {
          encoding: 'utf8',
          timeout: 30_000,
          env: { ...process.env, KUBECONFIG: missing },
        },
      );
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(missing);
    },
  );

  it('capstan-agent has no leader election flags; capstan-coordinator has them', () => {
    expect(run('packages/agent', 'dist/main.js', '--help')).not.toMatch(/leader/);
    expect(run('packages/coordinator', 'dist/main.js', '--help')).toContain('--leader-elect');
  });
});
