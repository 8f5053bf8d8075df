/**
 * A clusterctl file repository of this provider, laid out as clusterctl's local repositories are
 * (`<root>/infrastructure-capvcd/<version>/`): `infrastructure-components.yaml` (Namespace, CRDs,
 * RBAC, the conversion webhook's Service and certificate, and the Deployment serving it, all from
 * `deploy/`: one namespace, the container named `manager`),
 * `metadata.yaml`, a `cluster-template[-<flavor>].yaml` per flavor and `clusterclass-<name>.yaml`.
 * The components carry clusterctl variables (with defaults) for the VCD request budget;
 * the VCD site and credentials are per cluster, variables of the templates.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';
import { clusterClasses, flavors } from './flavors.js';
import type { TemplateObject } from './objects.js';
import { toYaml } from './yaml.js';

/** The provider's name and type as clusterctl knows them. */
export const PROVIDER_NAME = 'capvcd';
export const PROVIDER_DIR = `infrastructure-${PROVIDER_NAME}`;

const deploy = (file: string) => fileURLToPath(new URL(`../../deploy/${file}`, import.meta.url));
const documents = (file: string) =>
  parseAllDocuments(readFileSync(deploy(file), 'utf8')).map((d) => d.toJSON() as TemplateObject);
const multiDoc = (objects: TemplateObject[]) => objects.map(toYaml).join('---\n');

/** Deployment args that become clusterctl variables (name, default). */
const VARIABLE_ARGS: Record<string, [string, string]> = {
  '--concurrency': ['CAPVCD_CONCURRENCY', '10'],
  '--vcd-qps': ['CAPVCD_VCD_QPS', '10'],
  '--vcd-burst': ['CAPVCD_VCD_BURST', '20'],
};

/** deploy/'s Namespace, CRDs, RBAC and Deployment, the Deployment's tunables as variables. */
export function infrastructureComponents(): string {
  const manager = documents('manager.yaml');
  const namespace = manager.filter((o) => o.kind === 'Namespace');
  const deployment = manager.filter((o) => o.kind !== 'Namespace').map(withVariableArgs);
  return multiDoc([
    ...namespace,
    ...documents('crds.yaml'),
    ...documents('rbac.yaml'),
    ...documents('capi-aggregated-role.yaml'),
    ...documents('webhook.yaml'),
    ...deployment,
  ]);
}

function withVariableArgs(o: TemplateObject): TemplateObject {
  if (o.kind !== 'Deployment') return o;
  const copy = structuredClone(o) as TemplateObject & {
    spec: { template: { spec: { containers: Array<{ name: string; image: string; args: string[] }> } } };
  };
  for (const c of copy.spec.template.spec.containers) {
    c.image = canonicalImage(c.image);
    const flags = Object.keys(VARIABLE_ARGS);
    c.args = [
      ...c.args.filter((arg) => !flags.includes(arg.split('=')[0] as string)),
      ...Object.entries(VARIABLE_ARGS).map(([flag, [name, value]]) => `${flag}=\${${name}:=${value}}`),
    ];
  }
  return copy;
}

/**
 * The image as clusterctl's image overrides parse it: with its registry (a name without one, such
 * as `capstan/capvcd:0.1.0`, is Docker Hub's `docker.io/capstan/capvcd:0.1.0`, as every container
 * runtime reads it).
 */
export function canonicalImage(image: string): string {
  const first = image.split('/')[0] as string;
  const hasRegistry =
    image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasRegistry) return image;
  return image.includes('/') ? `docker.io/${image}` : `docker.io/library/${image}`;
}

/** File name of a flavor's template. */
export const templateFile = (flavor: string) =>
  flavor === '' ? 'cluster-template.yaml' : `cluster-template-${flavor}.yaml`;

/**
 * Writes the repository under `root` for `version` (e.g. `v0.1.0`); answers the version folder.
 * Also writes `clusterctl-settings.json` at `root`, as a provider's repository root has it.
 */
export function writeClusterctlRepository(root: string, version: string): string {
  const dir = join(root, PROVIDER_DIR, version);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'infrastructure-components.yaml'), infrastructureComponents());
  writeFileSync(join(dir, 'metadata.yaml'), readFileSync(deploy('metadata.yaml')));
  for (const flavor of flavors)
    writeFileSync(join(dir, templateFile(flavor.name)), multiDoc(flavor.objects()));
  for (const [name, objects] of Object.entries(clusterClasses))
    writeFileSync(join(dir, `clusterclass-${name}.yaml`), multiDoc(objects()));
  writeFileSync(
    join(root, 'clusterctl-settings.json'),
    `${JSON.stringify(
      {
        name: PROVIDER_DIR,
        config: { componentsFile: 'infrastructure-components.yaml', nextVersion: version },
      },
      null,
      2,
    )}\n`,
  );
  return dir;
}

/** A clusterctl config naming this repository's components (`clusterctl --config`). */
export function clusterctlConfig(root: string, version: string): string {
  const url = `file://${join(root, PROVIDER_DIR, version, 'infrastructure-components.yaml')}`;
  return stringify({ providers: [{ name: PROVIDER_NAME, url, type: 'InfrastructureProvider' }] });
}
