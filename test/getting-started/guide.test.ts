/**
 * docs/getting-started.md done as a new user does it, from the packed tarballs, in a folder outside
 * the workspace: install (dependencies from the npm cache or registry), `tsc --init` with its
 * defaults plus the guide's three lines, the guide's files; then the program is compiled, run
 * against a real API server (it mirrors a ConfigMap into a Secret and stops on SIGTERM with 0),
 * and the project's own envtest test passes under its own vitest. Needs the built dist
 * (`npm run build`).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Client } from '@capstan/runtime';
import { ConfigMap, HttpTransport, Secret } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packTarballs } from '../packaging/tarballs.js';
import { applyTsconfigLines, readGuide } from './guide.js';

const env = useControlPlane('guide');
const guide = readGuide();
const work = mkdtempSync(join(tmpdir(), 'capstan-guide-'));
const project = join(work, 'mirror');
const timings: string[] = [];
let tarballs: Map<string, string>;

/** Runs one of the guide's command lines in the project, our tarballs in place of the package names. */
function sh(line: string, tarballs: Map<string, string>): string {
  let command = line.replace(/@capstan\/[\w-]+/g, (name) => tarballs.get(name) ?? name);
  if (/^npm install\b/.test(command)) command += ' --prefer-offline --no-audit --no-fund';
  const started = Date.now();
  try {
    return execFileSync('bash', ['-c', command], { cwd: project, encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`"${command}" failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  } finally {
    timings.push(`${line}: ${Date.now() - started} ms`);
  }
}

beforeAll(() => {
  const started = Date.now();
  tarballs = packTarballs(['packages/runtime', 'packages/envtest', 'packages/cli'], join(work, 'tarballs'));
  mkdirSync(project);
  const [setup, check, conformance] = guide.steps;
  // The conformance step's installs join the set-up: the project's tests run once, both files.
  const installs = (conformance ?? []).filter((line) => line !== 'npx vitest run');
  for (const line of [...(setup ?? []), ...installs]) {
    sh(line, tarballs);
    if (line === 'npx tsc --init') {
      const tsconfig = join(project, 'tsconfig.json');
      writeFileSync(tsconfig, applyTsconfigLines(readFileSync(tsconfig, 'utf8'), guide.tsconfigLines));
    }
  }
  for (const [path, body] of guide.files) {
    mkdirSync(dirname(join(project, path)), { recursive: true });
    writeFileSync(join(project, path), body);
  }
  sh('npx tsc', tarballs);
  timings.push(`set-up total: ${Date.now() - started} ms`);
  expect(check).toEqual(['npx tsc', 'npx vitest run']);
  expect(conformance).toEqual(['npm install --save-dev fast-check', 'npx vitest run']);
  expect(guide.steps[3]?.[0]).toBe('npm install --save-dev @capstan/cli');
}, 600_000);

let controller: ChildProcess | undefined;
afterAll(() => {
  controller?.kill('SIGKILL');
  process.stderr.write(`[guide] ${timings.join('; ')}\n`);
  rmSync(work, { recursive: true, force: true });
});

describe('docs/getting-started.md, followed outside the workspace', () => {
  it('has the steps, the three tsconfig lines and the files the test follows', () => {
    expect(guide.steps[0]).toContain('npx tsc --init');
    expect(guide.tsconfigLines).toEqual(['"types": ["node"],', '"rootDir": ".",', '"outDir": "dist",']);
    expect([...guide.files.keys()].sort()).toEqual([
      'src/main.ts',
      'src/mirror.ts',
      'src/rbac.ts',
      'test/mirror.conformance.test.ts',
      'test/mirror.test.ts',
      'vitest.config.ts',
    ]);
  });

  it("compiles under tsc --init's strict defaults, exactOptionalPropertyTypes included", () => {
    const tsconfig = readFileSync(join(project, 'tsconfig.json'), 'utf8');
    expect(tsconfig).toMatch(/^\s*"exactOptionalPropertyTypes": true,/m);
    expect(tsconfig).toMatch(/^\s*"verbatimModuleSyntax": true,/m);
    expect(readFileSync(join(project, 'dist/src/main.js'), 'utf8')).toContain('addMirror');
    expect(readFileSync(join(project, 'dist/src/mirror.js'), 'utf8')).toContain('withFinalizer');
  });

  it('installs one copy of client-node, shared by the runtime and envtest', () => {
    const copies = execFileSync('find', ['node_modules', '-path', '*/@kubernetes/client-node/package.json'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(copies.trim().split('\n')).toEqual(['node_modules/@kubernetes/client-node/package.json']);
  });

  it('refuses require() with ERR_PACKAGE_PATH_NOT_EXPORTED, as the guide says (ESM only)', () => {
    const run = () =>
      execFileSync(process.execPath, ['-e', "require('@capstan/runtime')"], { cwd: project, stdio: 'pipe' });
    expect(run).toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
  });

  it('runs its controller against a real API server, and stops on SIGTERM with 0', async () => {
    const client = new Client(new HttpTransport(env.kubeConfig));
    const output: string[] = [];
    const args = ['dist/src/main.js', '--kubeconfig', env.plane.kubeconfigPath, '--namespace', env.namespace];
    controller = spawn(
      process.execPath,
      [...args, '--metrics-bind-address=0', '--health-probe-bind-address=0'],
      {
        cwd: project,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    controller.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
    controller.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
    const exited = new Promise<number | null>((resolve) => controller?.on('exit', (code) => resolve(code)));
    await client.create(ConfigMap, {
      metadata: { name: 'db', namespace: env.namespace, labels: { mirror: 'secret' } },
      data: { url: 'postgres://db' },
    });
    const secret = await eventually(() => client.get(Secret, { namespace: env.namespace, name: 'db' }), {
      what: 'the mirrored Secret',
      timeoutMs: 30_000,
      details: () => output.join(''),
    });
    expect(Buffer.from(secret.data?.url ?? '', 'base64').toString()).toBe('postgres://db');
    controller.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output.join('')).toContain('secret written');
  });

  it("passes the project's own tests under its own vitest: envtest, then the conformance scenario", () => {
    const started = Date.now();
    const out = execFileSync('npx', ['vitest', 'run'], {
      cwd: project,
      encoding: 'utf8',
      stdio: 'pipe',
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    timings.push(`npx vitest run: ${Date.now() - started} ms`);
    expect(out).toMatch(/Test Files\s+\S*2 passed\S*\s+\(2\)/);
    expect(out).toMatch(/Tests\s+\S*2 passed\S*\s+\(2\)/);
    expect(out).toContain('mirror.conformance.test.ts');
  }, 600_000);

  it('writes its RBAC with capstan gen rbac: what the mirror reads, owns and finalizes, and its Lease', () => {
    for (const line of guide.steps[3] ?? []) sh(line, tarballs);
    const rbac = readFileSync(join(project, 'deploy/rbac.yaml'), 'utf8');
    expect(rbac).toContain('kind: ServiceAccount');
    expect(rbac).toMatch(/resources: \[secrets\]\n\s+verbs: \[list, watch, create, update, delete\]/);
    expect(rbac).toMatch(/resources: \[configmaps\/finalizers\]\n\s+verbs: \[update\]/);
    expect(rbac).toMatch(/kind: Role\nmetadata: \{ name: mirror-controller, namespace: mirror-system \}/);
    const check = sh(`${guide.steps[3]?.at(-1)} --check 2>&1`, tarballs);
    expect(check).toContain('deploy/rbac.yaml unchanged');
  });
});
