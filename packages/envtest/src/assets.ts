import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { acquireFileLock } from './file-lock.js';
import { assetsKey, goModulesDir } from './versions.js';

/** Paths of the control-plane binaries. */
export interface Assets {
  /** The folder holding them. */
  dir: string;
  kubeApiServer: string;
  etcd: string;
  /** Absent when `KUBEBUILDER_ASSETS` names a folder without it. */
  kubeControllerManager?: string;
}

/** Options of {@link resolveAssets}. */
export interface ResolveAssetsOptions {
  /** Receives one line per build step; defaults to stderr. */
  onProgress?: (line: string) => void;
  /** Build into this cache root instead of `$CAPSTAN_ENVTEST_CACHE` or `~/.cache/capstan/envtest`. */
  cacheRoot?: string;
}

/** Thrown when the binaries can be neither found nor built; its message says what to install or set. */
export class AssetsUnavailableError extends Error {
  override readonly name = 'AssetsUnavailableError';
}

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The cache root: `$CAPSTAN_ENVTEST_CACHE`, else `$XDG_CACHE_HOME/capstan/envtest`, else `~/.cache/...`. */
export function defaultCacheRoot(): string {
  if (process.env.CAPSTAN_ENVTEST_CACHE) return process.env.CAPSTAN_ENVTEST_CACHE;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'capstan', 'envtest');
}

/**
 * Finds kube-apiserver, etcd and kube-controller-manager, in controller-runtime's order:
 * `KUBEBUILDER_ASSETS` when set; else the on-disk cache keyed by version; else builds them with
 * the machine's Go from the Go module proxy (once per machine: a file lock keeps parallel test
 * workers from building twice).
 */
export async function resolveAssets(options: ResolveAssetsOptions = {}): Promise<Assets> {
  const progress = options.onProgress ?? ((line: string) => process.stderr.write(`[envtest] ${line}\n`));
  const fromEnv = process.env.KUBEBUILDER_ASSETS;
  if (fromEnv) {
    const assets = assetsIn(fromEnv);
    const missing = [assets.kubeApiServer, assets.etcd].filter((p) => !isExecutable(p));
    if (missing.length > 0) {
      throw new AssetsUnavailableError(
        `KUBEBUILDER_ASSETS=${fromEnv} lacks an executable ${missing.join(' and ')}; ` +
          'point it at a folder holding kube-apiserver and etcd, or unset it to build them with Go.',
      );
    }
    if (!isExecutable(join(fromEnv, 'kube-controller-manager'))) delete assets.kubeControllerManager;
    return assets;
  }
  const dir = join(options.cacheRoot ?? defaultCacheRoot(), assetsKey());
  if (isComplete(dir)) return assetsIn(dir);
  const release = await acquireFileLock(`${dir}.lock`, (pid) =>
    progress(`waiting for process ${pid}, which is building the control plane into ${dir}`),
  );
  try {
    if (!isComplete(dir)) await build(dir, progress);
  } finally {
    release();
  }
  return assetsIn(dir);
}

function assetsIn(dir: string): Assets {
  return {
    dir,
    kubeApiServer: join(dir, 'kube-apiserver'),
    etcd: join(dir, 'etcd'),
    kubeControllerManager: join(dir, 'kube-controller-manager'),
  };
}

function isComplete(dir: string): boolean {
  const a = assetsIn(dir);
  return [a.kubeApiServer, a.etcd, a.kubeControllerManager as string].every(isExecutable);
}

async function build(dir: string, progress: (line: string) => void): Promise<void> {
  await requireGo();
  // Build into a scratch folder and rename, so an interrupted build never looks complete.
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const started = Date.now();
  progress(`building the control plane into ${dir} (first run only; a few minutes on 2 cores)`);
  progress('building etcd from the Go module proxy...');
  await runGo(['build', '-o', scratch, '.'], join(goModulesDir, 'etcd'), progress);
  progress('building kube-apiserver and kube-controller-manager from the Go module proxy...');
  await runGo(
    ['build', '-o', `${scratch}/`, './cmd/kube-apiserver', './cmd/kube-controller-manager'],
    join(goModulesDir, 'kubernetes'),
    progress,
  );
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  progress(`control plane built in ${Math.round((Date.now() - started) / 1000)} s`);
}

async function requireGo(): Promise<void> {
  try {
    await runGo(['version'], goModulesDir, () => {});
  } catch {
    throw new AssetsUnavailableError(
      'The control-plane binaries are not cached and Go is not on PATH to build them. ' +
        'Install Go (1.25 or newer, with access to the Go module proxy), or set KUBEBUILDER_ASSETS ' +
        'to a folder holding kube-apiserver and etcd.',
    );
  }
}

/** Runs `go` with progress: module downloads are reported, and a heartbeat every 30 s while compiling. */
function runGo(args: string[], cwd: string, progress: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
    let output = '';
    let downloads = 0;
    const started = Date.now();
    const heartbeat = setInterval(
      () => progress(`  still compiling (${Math.round((Date.now() - started) / 1000)} s)...`),
      30_000,
    );
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output = (output + text).slice(-20_000);
      for (const line of text.split('\n')) {
        if (line.startsWith('go: downloading') && ++downloads % 25 === 1)
          progress(`  ${line} (${downloads} modules)`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (err) => {
      clearInterval(heartbeat);
      reject(err);
    });
    child.on('close', (code) => {
      clearInterval(heartbeat);
      if (code === 0) resolve();
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
