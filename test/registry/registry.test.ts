/**
 * The packages as users get them, through a real npm registry: `npm run registry`'s Verdaccio on
 * loopback with every public package published (everything else proxied to npm's registry). Each
 * package's tarball, as the registry serves it, holds what it must; and a new project made by
 * `npm create capstan@latest my-operator --registry <local>` installs from the registry (no `file:`
 * path anywhere), builds, runs `npx capstan`, refuses a bad kubeconfig in one line, passes its
 * own envtest and conformance tests, and builds its image with podman from its Dockerfile. Needs
 * the built dist (`npm run build`), npm's registry for third-party packages, and podman + runc.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { requirePodman } from '../images/podman.js';
import { type PackageJson, PUBLISHED, readPackageJson, root } from '../packaging/packages.js';
import { userCommand, userEnv } from '../packaging/user-commands.js';
import { expectEntryPoints, expectManifest, expectModules, expectNoTests, filesUnder } from './contents.js';
import { type LocalRegistry, startRegistry } from './server.js';

const work = mkdtempSync(join(tmpdir(), 'capstan-registry-'));
const project = join(work, 'my-operator');
// npm create's own npm cache: npx would run a create-capstan@0.1.0 an earlier run left in the cache.
const npxCache = join(work, 'npx-cache');
const timings: string[] = [];
let registry: LocalRegistry;

const run = userCommand(timings);

const npm = (cwd: string, args: string[]) =>
  run(cwd, 'npm', [...args, '--no-audit', '--no-fund'], `npm ${args[0]}`);

/** `npm create capstan@latest my-operator --registry <local>`, in `work` (`--yes`: npm asks otherwise). */
const createMyOperator = () =>
  npm(work, [
    'create',
    'capstan@latest',
    'my-operator',
    '--registry',
    registry.url,
    '--cache',
    npxCache,
    '--yes',
  ]);

beforeAll(async () => {
  const started = Date.now();
  registry = await startRegistry();
  timings.push(
    `registry up, ${PUBLISHED.length} packages published: ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}, 300_000);

afterAll(async () => {
  await registry?.stop();
  process.stderr.write(`[registry] ${timings.join('; ')}\n`);
  rmSync(work, { recursive: true, force: true });
});

describe('each published package, as the registry serves its tarball', () => {
  const unpacked = join(work, 'published');
  beforeAll(() => {
    mkdirSync(unpacked);
    const specs = PUBLISHED.map((dir) => {
      const { name, version } = readPackageJson(dir);
      return `${name}@${version}`;
    });
    const packs = JSON.parse(
      npm(unpacked, ['pack', ...specs, '--registry', registry.url, '--json', '--ignore-scripts']),
    ) as Array<{ name: string; filename: string }>;
    expect(packs.map((p) => p.name).sort()).toEqual(specs.map((s) => s.replace(/@[^@]*$/, '')).sort());
    for (const { name, filename } of packs) {
      const into = join(unpacked, name);
      mkdirSync(into, { recursive: true });
      execFileSync('tar', ['-xzf', filename, '-C', into, '--strip-components=1'], { cwd: unpacked });
    }
  }, 300_000);

  describe.each(PUBLISHED)('%s', (dir) => {
    const name = readPackageJson(dir).name;
    const at = () => join(unpacked, name);
    const manifest = () =>
      JSON.parse(readFileSync(join(at(), 'package.json'), 'utf8')) as PackageJson & {
        engines?: Record<string, string>;
      };

    it('is the workspace’s package, Apache-2.0 with its LICENSE, for Node >= 20.19, with a README', () => {
      expect(manifest()).toMatchObject({ name, version: readPackageJson(dir).version });
      expectManifest(at(), manifest());
    });

    it('holds every export and bin target, each export with its types', () => {
      expectEntryPoints(at(), manifest());
    });

    it('holds each module with its types and source map, and the sources the maps name', () => {
      expectModules(at(), new Set(filesUnder(at())));
    });

    it('holds no tests, build state or coverage', () => {
      expectNoTests(new Set(filesUnder(at())));
    });
  });
});

describe('npm create capstan@latest my-operator --registry <local>, outside the workspace', () => {
  beforeAll(() => {
    createMyOperator();
    // As the user types it: the project's .npmrc names the registry it came from.
    npm(project, ['install']);
    npm(project, ['run', 'build']);
  }, 600_000);

  it('writes the skeleton: main, reconciler, generated API, deploy/, Dockerfile, test, README, .npmrc', () => {
    for (const path of [
      ...['package.json', 'tsconfig.json', 'src/main.ts', 'src/reconciler.ts', 'src/api/generated.ts'],
      ...['deploy/crd.yaml', 'deploy/namespace.yaml', 'deploy/rbac.yaml', 'deploy/deployment.yaml'],
      ...['deploy/kustomization.yaml', 'Dockerfile', 'test/widget.test.ts', 'vitest.config.ts'],
      ...['deploy/rbac-metrics.yaml', 'deploy/metrics-service.yaml', 'deploy/prometheus/monitor.yaml'],
      ...['test/widget.conformance.test.ts', 'README.md', '.gitignore', '.npmrc'],
    ])
      expect(existsSync(join(project, path)), path).toBe(true);
    const kustomization = parse(readFileSync(join(project, 'deploy/kustomization.yaml'), 'utf8')) as {
      resources: string[];
    };
    for (const file of kustomization.resources)
      expect(existsSync(join(project, 'deploy', file)), file).toBe(true);
    expect(readFileSync(join(project, 'deploy/deployment.yaml'), 'utf8')).toContain('namespace: my-operator');
    expect(readFileSync(join(project, 'README.md'), 'utf8').split('\n')[0]).toBe('# my-operator');
    expect(readFileSync(join(project, '.npmrc'), 'utf8')).toContain(`registry=${registry.url}\n`);
  });

  it('installed @capstan/* from the registry: no file: path in package.json or the lockfile', () => {
    const manifest = readFileSync(join(project, 'package.json'), 'utf8');
    const lockfile = readFileSync(join(project, 'package-lock.json'), 'utf8');
    expect(manifest).not.toContain('file:');
    expect(lockfile).not.toContain('file:');
    const { packages } = JSON.parse(lockfile) as {
      packages: Record<string, { version?: string; resolved?: string; link?: boolean }>;
    };
    for (const name of ['@capstan/runtime', '@capstan/envtest', '@capstan/cli']) {
      const entry = packages[`node_modules/${name}`];
      expect(entry, name).toMatchObject({ version: readPackageJson(`packages/${name.slice(9)}`).version });
      expect(entry?.link, name).toBeUndefined();
      if (entry?.resolved) expect(entry.resolved.startsWith(registry.url), entry.resolved).toBe(true);
    }
  });

  it('depends on the runtime, with envtest and the cli for development; strict with exactOptionalPropertyTypes', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      type: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.type).toBe('module');
    expect(pkg.dependencies).toEqual({ '@capstan/runtime': '^0.1.0' });
    expect(pkg.devDependencies).toMatchObject({ '@capstan/envtest': '^0.1.0', '@capstan/cli': '^0.1.0' });
    expect(pkg.devDependencies).toHaveProperty('fast-check');
    const tsconfig = JSON.parse(readFileSync(join(project, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: Record<string, unknown>;
    };
    expect(tsconfig.compilerOptions).toMatchObject({ strict: true, exactOptionalPropertyTypes: true });
    expect(readFileSync(join(project, 'dist/src/main.js'), 'utf8')).toContain('addWidget(');
  });

  it('imports every entry point of the installed @capstan packages', () => {
    const specifiers = ['runtime', 'envtest', 'cli'].flatMap((dir) => {
      const { name, exports = {} } = readPackageJson(`packages/${dir}`);
      return Object.keys(exports)
        .filter((subpath) => !subpath.includes('*'))
        .map((subpath) => `${name}${subpath.slice(1)}`);
    });
    expect(specifiers).toEqual(
      expect.arrayContaining(['@capstan/runtime/client', '@capstan/envtest/vitest']),
    );
    // The tsyringe adapter is opt-in: its peers (tsyringe, reflect-metadata) are not installed
    // unless the project asks for them, and importing it without them must say which is missing.
    const optIn = '@capstan/runtime/tsyringe';
    const everyday = specifiers.filter((s) => s !== optIn);
    const script = `for (const s of ${JSON.stringify(everyday)}) await import(s); console.log('ok');`;
    expect(run(project, process.execPath, ['--input-type=module', '-e', script], 'import').trim()).toBe('ok');
    const optInScript = `await import(${JSON.stringify(optIn)}).then(() => console.log('loaded'), (e) => console.log(e.message));`;
    expect(run(project, process.execPath, ['--input-type=module', '-e', optInScript], 'import')).toMatch(
      /Cannot find package '(reflect-metadata|tsyringe)'/,
    );
  });

  it('runs npx capstan from the installed @capstan/cli: its API is up to date with its CRD', () => {
    expect(readFileSync(join(project, 'src/api/generated.ts'), 'utf8')).toContain(
      'export const WidgetType = defineResource<Widget>({',
    );
    const args = ['capstan', 'gen', 'types', 'deploy/crd.yaml', '-o', 'src/api/generated.ts', '--check'];
    expect(run(project, 'npx', args)).toBe('');
  });

  it('answers --version and --help with the standard flags', () => {
    expect(run(project, process.execPath, ['dist/src/main.js', '--version']).trim()).toBe('0.1.0');
    const help = run(project, process.execPath, ['dist/src/main.js', '--help']);
    expect(help).toContain('Usage: my-operator');
    expect(help).toContain('--leader-elect');
  });

  it.each([
    ['does not exist', 'no-such-kubeconfig', undefined, /^error: .*no-such-kubeconfig/],
    [
      'is not YAML',
      'garbled-kubeconfig',
      'clusters: [',
      /^error: kubeconfig: .*garbled-kubeconfig: not valid YAML/,
    ],
  ] as const)('with a kubeconfig that %s: one line on stderr, exit 2, no stack', (_, file, text, line) => {
    const kubeconfig = join(work, file);
    if (text !== undefined) writeFileSync(kubeconfig, text);
    const r = spawnSync(process.execPath, ['dist/src/main.js', '--kubeconfig', kubeconfig], {
      cwd: project,
      env: userEnv,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)]);
  });

  it('refuses to write into a directory that is not empty', () => {
    expect(() => createMyOperator()).toThrow(/my-operator is not empty: choose a new directory/);
  });

  it('passes its own envtest and conformance tests: npm test, under its own vitest', () => {
    const out = npm(project, ['test']);
    expect(out).toMatch(/Test Files\s+\S*3 passed\S*\s+\(3\)/);
    expect(out).toMatch(/Tests\s+\S*5 passed\S*\s+\(5\)/);
  }, 600_000);

  // Its image, as its README says to build it (podman for docker, runc for crun, on the stand-in
  // base images scripts/images/base-images.sh makes): `npm ci` inside reaches this registry through
  // the project's .npmrc on the host network; the image's program then runs with no shell.
  it('builds its image from its Dockerfile, and the image runs its program', () => {
    requirePodman();
    run(root, join(root, 'scripts/images/base-images.sh'), [], 'base images');
    const tag = 'localhost/my-operator:0.1.0';
    const podman = ['--runtime', 'runc'];
    const limits = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];
    try {
      run(project, 'podman', [
        ...podman,
        'build',
        '--pull=never',
        '--network=host',
        ...limits,
        '-t',
        tag,
        '.',
      ]);
      const help = run(project, 'podman', [
        ...podman,
        'run',
        '--rm',
        '--network=none',
        ...limits,
        tag,
        '--help',
      ]);
      expect(help).toContain('--kubeconfig');
      expect(run(project, 'podman', ['image', 'inspect', '--format', '{{.Config.User}}', tag]).trim()).toBe(
        '65532:65532',
      );
    } finally {
      spawnSync('podman', ['rmi', '--force', tag], { stdio: 'ignore' });
    }
  }, 900_000);
});
