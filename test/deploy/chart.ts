/**
 * The Helm chart as the tests look at it: rendered with a set of values, its objects found by
 * kind and name, its flag lists compared with the operators' own parsers.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ManifestObject } from '../../packages/envtest/src/index.js';
import { root } from '../packaging/packages.js';
import { parseObjects, runTool } from './tools.js';

export const CHART = 'deploy/helm/capstan';

/** A container as the tests read it. */
export interface Container {
  name: string;
  image: string;
  args: string[];
  securityContext?: {
    capabilities?: { add?: string[]; drop?: string[] };
    seLinuxOptions?: { type?: string };
    appArmorProfile?: { type: string };
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    privileged?: boolean;
  };
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  resources?: unknown;
}

/** A workload's pod spec as the tests read it. */
export interface PodSpec {
  containers: Container[];
  hostPID?: boolean;
  tolerations?: unknown[];
  nodeSelector?: Record<string, string>;
  affinity?: unknown;
  priorityClassName?: string;
  volumes?: Array<{ name: string; hostPath?: { path: string; type?: string } }>;
}

const scratch = mkdtempSync(join(tmpdir(), 'capstan-chart-'));
let files = 0;

/** A values file holding `values` (JSON is YAML), for `-f`. */
export function valuesFile(values: object): string {
  const path = join(scratch, `values-${++files}.yaml`);
  writeFileSync(path, JSON.stringify(values));
  return path;
}

/**
 * `helm template capstan <chart> -n <namespace> --include-crds` with each values (an object, or a
 * path of a values file relative to the repository), in order.
 */
export async function renderChart(
  namespace: string,
  ...values: Array<object | string>
): Promise<ManifestObject[]> {
  const args = ['template', 'capstan', CHART, '--namespace', namespace, '--include-crds'];
  for (const v of values) args.push('-f', typeof v === 'string' ? v : valuesFile(v));
  return parseObjects(await runTool('helm', args));
}

/** The object of that kind and name; throws naming what is there instead. */
export function find<T = ManifestObject>(objects: ManifestObject[], kind: string, name: string): T {
  const found = objects.find((o) => o.kind === kind && o.metadata?.name === name);
  if (!found)
    throw new Error(
      `no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata?.name}`).join(', ')}`,
    );
  return found as T;
}

/** The pod spec of a Deployment or DaemonSet. */
export const podSpec = (objects: ManifestObject[], kind: string, name: string): PodSpec =>
  find<{ spec: { template: { spec: PodSpec } } }>(objects, kind, name).spec.template.spec;

/** The first container of a workload. */
export const container = (objects: ManifestObject[], kind: string, name: string): Container =>
  podSpec(objects, kind, name).containers[0] as Container;

/** The long flags a program's `--help` lists (its own parser's options), without help and version. */
export async function helpFlags(main: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [join(root, main), '--help']);
  return stdout
    .split('\n')
    .map((line) => /^ {2}(?:-\w, )?--([a-z0-9-]+)/.exec(line)?.[1])
    .filter((flag): flag is string => !!flag && flag !== 'help' && flag !== 'version')
    .sort();
}

/**
 * Whether an operator's own flag parser takes these arguments: it parses them (each flag's value
 * checked as it is read) and then shows its help, exiting 0; a bad value exits 2, and this throws
 * what the operator said.
 */
export async function parsedBy(main: string, args: string[]): Promise<void> {
  try {
    await promisify(execFile)(process.execPath, [join(root, main), ...args, '--help']);
  } catch (err) {
    throw new Error(`${main} refuses ${args.join(' ')}: ${(err as { stderr?: string }).stderr}`);
  }
}

/** The flag keys a chart's values schema allows under `<path>.config`. */
export function schemaFlags(schemaPath: string, ...path: string[]): string[] {
  let node = JSON.parse(readFileSync(join(root, schemaPath), 'utf8')) as {
    properties?: Record<string, unknown>;
  };
  for (const key of [...path, 'config']) node = node.properties?.[key] as typeof node;
  return Object.keys(node.properties ?? {}).sort();
}
