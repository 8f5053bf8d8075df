/**
 * Builds one component with the machine's Go from the Go module proxy, into a scratch folder that
 * is renamed into place once complete (an interrupted build never looks complete).
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, relative } from 'node:path';
import { AssetsUnavailableError } from './assets-error.js';
import type { ComponentSpec } from './components.js';
import { goModulesDir } from './versions.js';

/** Where `go mod download` put a module's source, and when that version was released. */
export async function moduleSource(module: string, version: string): Promise<{ dir: string; time: string }> {
  const out = await runGo(['mod', 'download', '-json', `${module}@${version}`], goModulesDir, () => {});
  const info = JSON.parse(out) as { Dir?: string; Info?: string; Error?: string };
  if (!info.Dir || !info.Info)
    throw new AssetsUnavailableError(`go mod download ${module}@${version}: ${out}`);
  const { Time } = JSON.parse(readFileSync(info.Info, 'utf8')) as { Time: string };
  return { dir: info.Dir, time: Time };
}

/**
 * Builds `binaries` (names from `spec`) and copies the component's data files into `dir`.
 * Binaries not named are not built (they come from environment variables).
 */
export async function buildComponent(
  spec: ComponentSpec,
  version: string,
  dir: string,
  binaries: string[],
  progress: (line: string) => void,
): Promise<void> {
  await requireGo();
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const started = Date.now();
  const cwd = join(goModulesDir, spec.moduleDir);
  const source = await moduleSource(spec.upstream, version);
  for (const [from, to] of spec.data ?? []) copyYaml(join(source.dir, from), join(scratch, to));
  const flags = spec.versionFlags?.(version, source.time) ?? [];
  const ldflags = flags.length ? ['-ldflags', flags.join(' ')] : [];
  // Binaries named as their package folder build in one `go build`, which compiles their shared
  // packages once and in parallel; the others one at a time.
  const wanted = spec.binaries.filter((b) => binaries.includes(b.name));
  const together = wanted.filter((b) => basename(b.pkg) === b.name);
  const groups = [
    ...(together.length
      ? [{ names: together.map((b) => b.name), pkgs: together.map((b) => b.pkg), out: `${scratch}/` }]
      : []),
    ...wanted
      .filter((b) => !together.includes(b))
      .map((b) => ({ names: [b.name], pkgs: [b.pkg], out: join(scratch, b.name) })),
  ];
  if (groups.length) {
    // Downloads overlap with other components' builds; compiling does not: one `go build` already
    // keeps every core busy, and two at once would compile their shared packages twice.
    progress(`downloading the modules of ${spec.name} ${version} from the Go module proxy...`);
    await runGo(['mod', 'download'], cwd, progress, `(${spec.name})`);
    await oneCompileAtATime(async () => {
      for (const group of groups) {
        progress(`compiling ${group.names.join(', ')} ${version}...`);
        const t = Date.now();
        await runGo(
          ['build', ...ldflags, '-o', group.out, ...group.pkgs],
          cwd,
          progress,
          group.names.join(', '),
        );
        progress(`${group.names.join(', ')} built in ${seconds(t)} s`);
      }
    });
  }
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  progress(`${spec.name} ${version} ready in ${dir} (${seconds(started)} s)`);
}

/**
 * `go install <pkg>@<version>` into `dir` (scratch folder renamed into place once complete): a
 * main package built with its own module's pinned dependencies, as its authors release it.
 * `instead` says what else the user can do when Go is missing.
 */
export async function goInstall(
  tool: { name: string; pkg: string; version: string; instead: string; buildFlags?: readonly string[] },
  dir: string,
  progress: (line: string) => void,
): Promise<void> {
  const { name, pkg, version } = tool;
  await requireGo(tool.instead, `${name} ${version} is`);
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const started = Date.now();
  progress(`building ${pkg}@${version} from the Go module proxy...`);
  await oneCompileAtATime(() =>
    runGo(['install', ...(tool.buildFlags ?? []), `${pkg}@${version}`], goModulesDir, progress, name, {
      GOBIN: scratch,
      CGO_ENABLED: '0',
    }),
  );
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  progress(`${name} ${version} ready in ${dir} (${seconds(started)} s)`);
}

/**
 * Builds a main package from a copy of its module's source (the version the Go module proxy
 * serves, with the module's own go.mod and go.sum), after writing `placeholders` into the copy:
 * for modules whose release embeds generated files the module zip lacks (Alertmanager's
 * `//go:embed app/dist` web UI, built by its Makefile, not committed).
 */
export async function goBuildFromSource(
  tool: {
    name: string;
    pkg: string;
    version: string;
    module: string;
    instead: string;
    buildFlags?: readonly string[];
    placeholders: Readonly<Record<string, string>>;
  },
  dir: string,
  progress: (line: string) => void,
): Promise<void> {
  const { name, pkg, version, module } = tool;
  await requireGo(tool.instead, `${name} ${version} is`);
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  const started = Date.now();
  progress(`building ${pkg}@${version} from the Go module proxy (a copy of its source)...`);
  const source = await moduleSource(module, version);
  const copy = join(scratch, 'src');
  cpSync(source.dir, copy, { recursive: true });
  makeWritable(copy);
  for (const [path, text] of Object.entries(tool.placeholders)) {
    mkdirSync(join(copy, path, '..'), { recursive: true });
    writeFileSync(join(copy, path), text);
  }
  const relative = pkg === module ? '.' : `./${pkg.slice(module.length + 1)}`;
  await oneCompileAtATime(() =>
    runGo(['build', ...(tool.buildFlags ?? []), '-o', join(scratch, name), relative], copy, progress, name, {
      CGO_ENABLED: '0',
    }),
  );
  rmSync(copy, { recursive: true, force: true });
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  progress(`${name} ${version} ready in ${dir} (${seconds(started)} s)`);
}

/** The module cache is read-only; a copy of it is made writable (folders and files). */
function makeWritable(path: string): void {
  chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) makeWritable(join(path, entry));
}

let compiling: Promise<unknown> = Promise.resolve();

/** Runs `compile` once the compiles this process started before it have finished. */
function oneCompileAtATime<T>(compile: () => Promise<T>): Promise<T> {
  const run = compiling.then(compile, compile);
  compiling = run.catch(() => {});
  return run;
}

const seconds = (since: number) => Math.round((Date.now() - since) / 1000);

/** Copies the YAML files of `from` (not tests, not kustomizations) into `to`, keeping the layout. */
function copyYaml(from: string, to: string): void {
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) {
        if (entry !== 'testdata') walk(path);
      } else if (entry.endsWith('.yaml') && entry !== 'kustomization.yaml') {
        const target = join(to, relative(from, path));
        mkdirSync(join(target, '..'), { recursive: true });
        writeFileSync(target, readFileSync(path));
      }
    }
  };
  walk(from);
}

async function requireGo(
  instead = 'set KUBEBUILDER_ASSETS to a folder holding kube-apiserver and etcd (and the CAPSTAN_*_BINARY variables for the others)',
  what = 'The envtest binaries are',
): Promise<void> {
  try {
    await runGo(['version'], goModulesDir, () => {});
  } catch {
    throw new AssetsUnavailableError(
      `${what} not cached and Go is not on PATH to build them. ` +
        `Install Go (1.26 or newer, with access to the Go module proxy), or ${instead}.`,
    );
  }
}

/**
 * Runs `go` and answers its stdout. Progress: module downloads are reported, and a heartbeat
 * every 30 s while compiling.
 */
export function runGo(
  args: string[],
  cwd: string,
  progress: (line: string) => void,
  what = args.at(-1),
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let output = '';
    let downloads = 0;
    const started = Date.now();
    const heartbeat = setInterval(
      () => progress(`  go ${args[0]} ${what}: still running (${seconds(started)} s)...`),
      30_000,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      output = (output + chunk.toString()).slice(-20_000);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      output = (output + text).slice(-20_000);
      for (const line of text.split('\n')) {
        if (line.startsWith('go: downloading') && ++downloads % 25 === 1)
          progress(`  ${line} (${downloads} modules)`);
      }
    });
    child.on('error', (err) => {
      clearInterval(heartbeat);
      reject(err);
    });
    child.on('close', (code) => {
      clearInterval(heartbeat);
      if (code === 0) resolve(stdout);
      else
        reject(
          new AssetsUnavailableError(
            `'go ${args.join(' ')}' in ${cwd} failed with exit code ${code}:\n${output.trim()}\n` +
              'Check that the Go module proxy is reachable, or set KUBEBUILDER_ASSETS.',
          ),
        );
    });
  });
}
