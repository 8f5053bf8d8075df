/**
 * The command-line tools manifest tests run besides the control plane (kustomize, helm): built on
 * first use with the machine's Go from the Go module proxy (`go install <pkg>@<version>`), cached
 * by version next to the envtest binaries, under the same kind of lock, with progress shown.
 */
import { join } from 'node:path';
import { defaultCacheRoot, isExecutable } from './assets.js';
import { AssetsUnavailableError } from './assets-error.js';
import { acquireFileLock } from './file-lock.js';
import { goInstall } from './go-build.js';

/** One tool: the Go main package that builds it, its version, and the variable naming a prebuilt one. */
export interface ToolSpec {
  /** The main package, as `go install` takes it. */
  pkg: string;
  version: string;
  /** Environment variable naming a prebuilt binary to use instead of building. */
  envVar: string;
}

/**
 * The tools, pinned. kustomize stays on v5.8.2: v5.8.3 needs Go 1.27.
 */
export const tools = {
  kustomize: {
    pkg: 'sigs.k8s.io/kustomize/kustomize/v5',
    version: 'v5.8.2',
    envVar: 'CAPSTAN_KUSTOMIZE_BINARY',
  },
  helm: { pkg: 'helm.sh/helm/v3/cmd/helm', version: 'v3.22.0', envVar: 'CAPSTAN_HELM_BINARY' },
} as const satisfies Record<string, ToolSpec>;

/** The name of one of {@link tools}. */
export type ToolName = keyof typeof tools;

/** Options of {@link resolveTool}. */
export interface ResolveToolOptions {
  /** Receives one line per build step; defaults to stderr. */
  onProgress?: (line: string) => void;
  /** The cache root (default: `defaultCacheRoot()`); the tool goes to `<root>/tools/<name>-<version>/`. */
  cacheRoot?: string;
}

/**
 * The path of a tool's binary: its `CAPSTAN_*_BINARY` variable, else the cache, else built now
 * (once per machine: a file lock keeps parallel test workers and `.ci/tools` from building twice).
 */
export async function resolveTool(name: ToolName, options: ResolveToolOptions = {}): Promise<string> {
  const spec: ToolSpec = tools[name];
  const progress = options.onProgress ?? ((line: string) => process.stderr.write(`[envtest] ${line}\n`));
  const fromVar = process.env[spec.envVar];
  if (fromVar) {
    if (!isExecutable(fromVar))
      throw new AssetsUnavailableError(`${spec.envVar}=${fromVar} is not an executable file`);
    return fromVar;
  }
  const dir = join(options.cacheRoot ?? defaultCacheRoot(), 'tools', `${name}-${spec.version}`);
  const binary = join(dir, name);
  if (isExecutable(binary)) return binary;
  const release = await acquireFileLock(`${dir}.lock`, (pid) =>
    progress(`${name}: waiting for process ${pid}, which is building into ${dir}`),
  );
  try {
    if (!isExecutable(binary))
      await goInstall({ name, ...spec, instead: `set ${spec.envVar}` }, dir, (line) =>
        progress(`${name}: ${line}`),
      );
  } finally {
    release();
  }
  return binary;
}
