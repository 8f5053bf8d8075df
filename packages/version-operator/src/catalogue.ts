/**
 * The versions the operator knows how to run, each a set of manifests per component. The shipped
 * catalogue has one entry, the current version, read from the very `deploy/` files of the
 * coordinator and agent packages that a user applies by hand (one source of truth); its version is
 * the tag of the images those manifests name. Other entries (a test version, a later release) are
 * added with {@link Catalogue.with}.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProtocolName } from '@capstan/reboot-protocol';
import { parseAllDocuments } from 'yaml';
import type { ComponentName } from './api/reboot-stack.js';

/** A manifest object as parsed from YAML. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [k: string]: unknown };
  [field: string]: unknown;
}

/** A protocol migration a version can carry out, written `from->to`. */
export type MigrationPath = `${ProtocolName}->${ProtocolName}`;

/** One version: its manifests per component and what it accepts. */
export interface CatalogueEntry {
  readonly version: string;
  readonly manifests: Readonly<Record<ComponentName, readonly Manifest[]>>;
  /** Flag names (without dashes) each component accepts from a stack's spec. */
  readonly flags: Readonly<Record<ComponentName, readonly string[]>>;
  /** Versions a running stack may move from to this one (a fresh install always may). */
  readonly upgradesFrom: readonly string[];
  /** Protocol switches this version can migrate a live cluster through. */
  readonly migrations: readonly MigrationPath[];
}

/** The versions known to an operator. */
export class Catalogue {
  private readonly entries: ReadonlyMap<string, CatalogueEntry>;

  constructor(entries: readonly CatalogueEntry[]) {
    this.entries = new Map(entries.map((e) => [e.version, e]));
  }

  /** The entry of `version`, or undefined for a version this operator does not ship. */
  get(version: string): CatalogueEntry | undefined {
    return this.entries.get(version);
  }

  /** Every known version, in the order given. */
  versions(): string[] {
    return [...this.entries.keys()];
  }

  /** A catalogue with `entry` added (or replacing the entry of its version). */
  with(entry: CatalogueEntry): Catalogue {
    return new Catalogue([...[...this.entries.values()].filter((e) => e.version !== entry.version), entry]);
  }
}

/**
 * Parses every `.yaml` file of `dir` and of `dir/crds` (not `examples/`), in name order: the
 * Kubernetes objects only (a `kustomization.yaml` is build input for kustomize, not an object).
 */
export function readDeployDir(dir: string): Manifest[] {
  const files = (d: string): string[] => {
    try {
      return readdirSync(d)
        .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
        .sort()
        .map((f) => join(d, f));
    } catch {
      return [];
    }
  };
  return [...files(join(dir, 'crds')), ...files(dir)].flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8'))
      .map((doc) => doc.toJS() as Manifest | null)
      .filter((m): m is Manifest => m !== null && typeof m === 'object' && typeof m.kind === 'string')
      .filter((m) => !m.apiVersion?.startsWith('kustomize.config.k8s.io/')),
  );
}

/**
 * The `deploy/` folder of an installed package, through the package's own `./deploy/*` export
 * (its published manifests; never its code). Every operator package ships a
 * `deploy/kustomization.yaml`, which locates the folder.
 */
export function packageDeployDir(packageName: string): string {
  return dirname(fileURLToPath(import.meta.resolve(`${packageName}/deploy/kustomization.yaml`)));
}

/** The image tag of the first container of the component's workload, or undefined. */
export function workloadImageTag(manifests: readonly Manifest[]): string | undefined {
  const workload = manifests.find((m) => m.kind === 'Deployment' || m.kind === 'DaemonSet') as
    | { spec?: { template?: { spec?: { containers?: Array<{ image?: string }> } } } }
    | undefined;
  const image = workload?.spec?.template?.spec?.containers?.[0]?.image;
  const colon = image?.lastIndexOf(':') ?? -1;
  return image && colon > image.lastIndexOf('/') ? image.slice(colon + 1) : undefined;
}

/** Flags each component of the current version takes (its own and the runtime's standard ones). */
const CURRENT_FLAGS: Record<ComponentName, readonly string[]> = {
  coordinator: [
    'default-group-name',
    'default-max-unavailable',
    'default-order',
    'default-grant-timeout',
    'default-before-reboot-annotation',
    'default-after-reboot-annotation',
    'node-selector',
    'group-selector',
    'fence-lease-name',
    'resync-period',
    'fleetlock-bind-address',
    'fleetlock-wait',
    'log-level',
    'log-format',
    'metrics-bind-address',
    'health-probe-bind-address',
  ],
  agent: [
    'source',
    'reboot-sentinel',
    'reboot-sentinel-command',
    'sentinel-interval',
    'drain-timeout',
    'drain-grace-period',
    'force-reboot',
    'failure-backoff',
    'os-release-path',
    'log-level',
    'log-format',
    'metrics-bind-address',
    'health-probe-bind-address',
  ],
};

/**
 * The entry of the version the installed coordinator and agent packages publish: their `deploy/`
 * manifests, as a user applies them by hand.
 * @throws Error when the two packages' images name different versions (a broken install).
 */
export function currentEntry(
  dirs: Record<ComponentName, string> = {
    coordinator: packageDeployDir('@capstan/coordinator'),
    agent: packageDeployDir('@capstan/agent'),
  },
): CatalogueEntry {
  const manifests = { coordinator: readDeployDir(dirs.coordinator), agent: readDeployDir(dirs.agent) };
  const versions = new Set([workloadImageTag(manifests.coordinator), workloadImageTag(manifests.agent)]);
  if (versions.size !== 1 || versions.has(undefined)) {
    throw new Error(`coordinator and agent deploy/ name different versions: ${[...versions].join(', ')}`);
  }
  return Object.freeze({
    version: [...versions][0] as string,
    manifests,
    flags: CURRENT_FLAGS,
    upgradesFrom: [],
    migrations: ['fluo->capstan'] as MigrationPath[],
  });
}

/** The catalogue this operator ships: the current version. */
export function shippedCatalogue(): Catalogue {
  return new Catalogue([currentEntry()]);
}
