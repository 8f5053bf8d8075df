/**
 * The files of a new project: the templates with the project's name in place of `__NAME__`, its
 * package.json, and `src/api/generated.ts` written by `capstan gen types` from the template CRD.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateTypes, parseDocuments } from '@capstan/cli';

/** The templates shipped with this package. */
export const TEMPLATES = fileURLToPath(new URL('../templates', import.meta.url));

/** Templates whose names npm pack would drop or act on, stored without their leading dot. */
const RENAMED: Record<string, string> = { gitignore: '.gitignore', dockerignore: '.dockerignore' };

/** A project name npm and Kubernetes both accept: lower-case letters, digits and dashes. */
const NAME = /^[a-z]([a-z0-9-]{0,50}[a-z0-9])?$/;

/** Versions the new project depends on. */
export interface SkeletonVersions {
  /** Of `@capstan/runtime`, `@capstan/envtest` and `@capstan/cli` (released together). */
  capstan: string;
  /**
   * Install these instead, by package name: `file:` specs of local tarballs (`npm pack`), so the
   * project installs before the packages are published, offline with npm's cache.
   */
  tarballs?: Readonly<Record<string, string>>;
}

/** Why a project cannot be written; the message says what to change. */
export class SkeletonError extends Error {
  override readonly name = 'SkeletonError';
}

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? templateFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** `capstan gen rbac` for the project (its roles, ServiceAccount and namespace all named `name`). */
export const RBAC_COMMAND = (name: string) =>
  `capstan gen rbac dist/src/rbac.js --name ${name} --service-account ${name}/${name} --with-service-account --regenerate 'npm run build && npm run gen:rbac'`;

function packageJson(name: string, versions: SkeletonVersions): string {
  const capstan = (pkg: string) => versions.tarballs?.[pkg] ?? `^${versions.capstan}`;
  const manifest = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20.19' },
    scripts: {
      gen: 'capstan gen types deploy/crd.yaml -o src/api/generated.ts',
      'gen:rbac': `${RBAC_COMMAND(name)} -o deploy/rbac.yaml`,
      build: 'tsc',
      test: 'vitest run',
      start: 'node dist/src/main.js',
    },
    dependencies: { '@capstan/runtime': capstan('@capstan/runtime') },
    devDependencies: {
      '@capstan/cli': capstan('@capstan/cli'),
      '@capstan/envtest': capstan('@capstan/envtest'),
      '@types/node': '^20.19.0',
      'fast-check': '^4.11.0',
      typescript: '^6.0.3',
      vitest: '^4.1.12',
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The new project's files by path (forward slashes), ready to be written. */
export function skeletonFiles(
  name: string,
  versions: SkeletonVersions,
  templates = TEMPLATES,
): Map<string, string> {
  if (!NAME.test(name))
    throw new SkeletonError(
      `"${name}" is not a project name: use lower-case letters, digits and dashes, starting with a letter`,
    );
  const files = new Map<string, string>();
  for (const file of templateFiles(templates)) {
    const path = relative(templates, file).split('\\').join('/');
    files.set(RENAMED[path] ?? path, readFileSync(file, 'utf8').replaceAll('__NAME__', name));
  }
  files.set('package.json', packageJson(name, versions));
  const crd = files.get('deploy/crd.yaml');
  if (crd === undefined) throw new SkeletonError(`the templates in ${templates} have no deploy/crd.yaml`);
  files.set(
    'src/api/generated.ts',
    generateTypes(parseDocuments(crd, 'deploy/crd.yaml'), { source: 'deploy/crd.yaml' }),
  );
  return files;
}

/** Writes the project into `dir`, which must be absent or empty (nothing is overwritten). */
export function writeSkeleton(dir: string, files: ReadonlyMap<string, string>): void {
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new SkeletonError(`${dir} is not empty: choose a new directory`);
  for (const [path, text] of files) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}

/** The packages a project installs from tarballs: `@capstan/runtime`, `@capstan/envtest`, `@capstan/cli`. */
export const TARBALL_PACKAGES = ['@capstan/runtime', '@capstan/envtest', '@capstan/cli'] as const;

/**
 * `file:` specs of the tarballs `npm pack` wrote into `dir` (`capstan-runtime-<version>.tgz`...),
 * by package name; fails naming the tarballs missing.
 */
export function tarballSpecs(dir: string, version: string): Record<string, string> {
  const present = existsSync(dir) ? new Set(readdirSync(dir)) : new Set<string>();
  const file = (pkg: string) => `${pkg.slice(1).replace('/', '-')}-${version}.tgz`;
  const missing = TARBALL_PACKAGES.filter((pkg) => !present.has(file(pkg)));
  if (missing.length > 0)
    throw new SkeletonError(
      `${dir} lacks ${missing.map(file).join(', ')}: in a Capstan clone, run ` +
        '`npm run build && npm pack -w packages/runtime -w packages/envtest -w packages/cli --pack-destination <dir>`',
    );
  return Object.fromEntries(TARBALL_PACKAGES.map((pkg) => [pkg, `file:${resolve(dir, file(pkg))}`]));
}
