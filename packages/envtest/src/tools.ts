/**
 * The programs tests run besides the control plane (kustomize and helm for the manifest tests;
 * Prometheus and Alertmanager for the coordinator's gates and silences; Cluster API's in-cluster
 * IPAM provider for capvcd's IPAM addresses): built on first use with
 * the machine's Go from the Go module proxy (`go install <pkg>@<version>`, the module's own pinned
 * dependencies), cached by version and build flags next to the envtest binaries, under the same
 * kind of lock, with progress shown.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { defaultCacheRoot, isExecutable } from './assets.js';
import { AssetsUnavailableError } from './assets-error.js';
import { acquireFileLock } from './file-lock.js';
import { goBuildFromSource, goInstall } from './go-build.js';

/** One tool: the Go main package that builds it, its version, and the variable naming a prebuilt one. */
export interface ToolSpec {
  /** The main package, as `go install` takes it. */
  pkg: string;
  version: string;
  /** Environment variable naming a prebuilt binary to use instead of building. */
  envVar: string;
  /** Extra `go install` flags (build tags, `-trimpath`); part of the cache key. */
  buildFlags?: readonly string[];
  /**
   * Build from a copy of this module's source with these files (path in the module: content)
   * added, instead of `go install`: for a release that embeds generated files its module lacks.
   */
  fromSource?: { module: string; placeholders: Readonly<Record<string, string>> };
}

/** What Alertmanager's `//go:embed app/dist` finds in place of its web UI, which tests never load. */
const NO_UI = '<!doctype html><p>Alertmanager built by Capstan envtest without its web UI.</p>\n';

/**
 * The tools, pinned. kustomize stays on v5.8.2: v5.8.3 needs Go 1.27. Prometheus builds without
 * its service discoveries (`remove_all_sd`: each `plugins/plugin_*.go` is behind
 * `!remove_all_sd || enable_<name>_sd`; static targets still work) and without embedded UI assets
 * (those need the `builtinassets` tag, left unset), which cuts most of its dependency graph.
 */
export const tools = {
  kustomize: {
    pkg: 'sigs.k8s.io/kustomize/kustomize/v5',
    version: 'v5.8.2',
    envVar: 'CAPSTAN_KUSTOMIZE_BINARY',
  },
  helm: { pkg: 'helm.sh/helm/v3/cmd/helm', version: 'v3.22.0', envVar: 'CAPSTAN_HELM_BINARY' },
  prometheus: {
    pkg: 'github.com/prometheus/prometheus/cmd/prometheus',
    version: 'v0.316.0',
    envVar: 'CAPSTAN_PROMETHEUS_BINARY',
    buildFlags: ['-trimpath', '-tags=remove_all_sd'],
  },
  alertmanager: {
    pkg: 'github.com/prometheus/alertmanager/cmd/alertmanager',
    version: 'v0.35.0',
    envVar: 'CAPSTAN_ALERTMANAGER_BINARY',
    buildFlags: ['-trimpath'],
    // Its module zip lacks the generated web UI its ui package embeds, so `go install` fails.
    fromSource: {
      module: 'github.com/prometheus/alertmanager',
      placeholders: { 'ui/app/dist/elm/index.html': NO_UI, 'ui/app/dist/mantine/index.html': NO_UI },
    },
  },
  // Cluster API's in-cluster IPAM provider (InClusterIPPool → IPAddress for each IPAddressClaim).
  // `go install pkg@version` asks the proxy for the module's version list, which it refuses for this
  // module: it builds from a copy of the module's source instead, with its own go.mod and go.sum.
  'ipam-in-cluster': {
    pkg: 'sigs.k8s.io/cluster-api-ipam-provider-in-cluster',
    version: 'v1.1.0',
    envVar: 'CAPSTAN_IPAM_IN_CLUSTER_BINARY',
    buildFlags: ['-trimpath'],
    fromSource: { module: 'sigs.k8s.io/cluster-api-ipam-provider-in-cluster', placeholders: {} },
  },
} as const satisfies Record<string, ToolSpec>;

/** The name of one of {@link tools}. */
export type ToolName = keyof typeof tools;

/** Options of {@link resolveTool}. */
export interface ResolveToolOptions {
  /** Receives one line per build step; defaults to stderr. */
  onProgress?: (line: string) => void;
  /**
   * The cache root (default: `defaultCacheRoot()`); the tool goes to `<root>/tools/<name>-<version>/`
   * (plus a hash of its build flags when it has any).
   */
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
  const dir = join(options.cacheRoot ?? defaultCacheRoot(), 'tools', toolFolder(name));
  const binary = join(dir, name);
  if (isExecutable(binary)) return binary;
  const release = await acquireFileLock(`${dir}.lock`, (pid) =>
    progress(`${name}: waiting for process ${pid}, which is building into ${dir}`),
  );
  try {
    const report = (line: string) => progress(`${name}: ${line}`);
    const instead = `set ${spec.envVar}`;
    if (isExecutable(binary)) return binary;
    if (spec.fromSource) await goBuildFromSource({ name, ...spec, ...spec.fromSource, instead }, dir, report);
    else await goInstall({ name, ...spec, instead }, dir, report);
  } finally {
    release();
  }
  return binary;
}

/** The cache folder name of a tool (under `<cache root>/tools/`): its name and version, and a hash of its recipe if it has one. */
export function toolFolder(name: ToolName): string {
  const spec: ToolSpec = tools[name];
  if (!spec.buildFlags?.length && !spec.fromSource) return `${name}-${spec.version}`;
  const recipe = JSON.stringify([spec.buildFlags ?? [], spec.fromSource ?? null]);
  return `${name}-${spec.version}-${createHash('sha256').update(recipe).digest('hex').slice(0, 8)}`;
}
