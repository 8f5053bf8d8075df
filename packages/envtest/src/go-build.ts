/**
 * Builds one component with the machine's Go from the Go module proxy, into a scratch folder that
 * is renamed into place once complete (an interrupted build never looks complete).
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
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
  for (const binary of spec.binaries.filter((b) => binaries.includes(b.name))) {
    progress(`building ${binary.name} ${version} from the Go module proxy...`);
    const t = Date.now();
    await runGo(['build', ...ldflags, '-o', join(scratch, binary.name), binary.pkg], cwd, progress);
    progress(`${binary.name} built in ${seconds(t)} s`);
  }
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  progress(`${spec.name} ${version} ready in ${dir} (${seconds(started)} s)`);
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

async function requireGo(): Promise<void> {
  try {
    await runGo(['version'], goModulesDir, () => {});
  } catch {
    throw new AssetsUnavailableError(
      'The envtest binaries are not cached and Go is not on PATH to build them. ' +
        'Install Go (1.26 or newer, with access to the Go module proxy), or set KUBEBUILDER_ASSETS ' +
        'to a folder holding kube-apiserver and etcd (and the CAPSTAN_*_BINARY variables for the others).',
    );
  }
}

/**
 * Runs `go` and answers its stdout. Progress: module downloads are reported, and a heartbeat
 * every 30 s while compiling.
 */
export function runGo(args: string[], cwd: string, progress: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
    let stdout = '';
    let output = '';
    let downloads = 0;
    const started = Date.now();
    const heartbeat = setInterval(
      () => progress(`  still compiling ${args.at(-1)} (${seconds(started)} s)...`),
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
