/**
 * What a published package must hold, checked on the files of its tarball as the registry serves
 * it: its manifest's license and engines, README and LICENSE, every export and bin target, each
 * module with its types and source map (and the sources the map names), and no tests.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { expect } from 'vitest';
import type { PackageJson } from '../packaging/packages.js';

/** Every file under `dir`, as forward-slash paths relative to it. */
export function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? filesUnder(dir, path) : [path];
  });
}

/** Each export's targets: `[subpath, condition, target]` (condition `default` for a bare string). */
export function exportTargets(exports: PackageJson['exports'] = {}): Array<[string, string, string]> {
  return Object.entries(exports).flatMap(([subpath, target]) =>
    typeof target === 'string'
      ? [[subpath, 'default', target] as [string, string, string]]
      : Object.entries(target).map(
          ([condition, path]) => [subpath, condition, path] as [string, string, string],
        ),
  );
}

/**
 * The declarations of a shipped module: its own `.d.ts` beside it, or for an entry point of the
 * runtime's bundle (`dist/bundle/<path>`) those of the per-file module it bundles (`dist/<path>`).
 * The bundle's chunks (`dist/bundle/chunks/`: core, testing, what they share) are internal: no
 * declarations.
 */
function typesOf(js: string): string | undefined {
  if (js.startsWith('dist/bundle/chunks/')) return undefined;
  // `./api/<group>/<version>`: its types are generated under dist/api/generated/ (package.json).
  const api = /^dist\/bundle\/api\/(.+)\.js$/.exec(js);
  if (api) return `dist/api/generated/${api[1]}.d.ts`;
  return js.replace(/^dist\/bundle\//, 'dist/').replace(/\.js$/, '.d.ts');
}

/**
 * An entry point of the runtime's bundle: a module that re-exports names from its core (or testing);
 * none for a types-only group version (`./api/meta/v1`).
 */
const isBundleEntry = (js: string) => js.startsWith('dist/bundle/') && !js.startsWith('dist/bundle/chunks/');
const BUNDLE_ENTRY =
  /^\/\/ [^\n]*\nexport \{ [^}]* \} from "(\.\.\/)*(\.\/)?chunks\/(core|testing|tsyringe)\.js";\n$/;

/** The manifest: Apache-2.0 with its text, Node's engine, a README. */
export function expectManifest(dir: string, pkg: PackageJson & { engines?: Record<string, string> }): void {
  expect(pkg.license).toBe('Apache-2.0');
  expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toContain('Apache License');
  expect(pkg.engines).toEqual({ node: '>=20.19' });
  expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(/^# /);
}

/** Every export target and bin is a file in the tarball (a `*` pattern: a folder with files). */
export function expectEntryPoints(dir: string, pkg: PackageJson): void {
  const targets = exportTargets(pkg.exports);
  expect(targets.length).toBeGreaterThan(0);
  for (const [subpath, condition, target] of targets) {
    const path = join(dir, target.split('*')[0] ?? target);
    const what = `${pkg.name} exports ${subpath} (${condition}) → ${target}`;
    expect(existsSync(path), what).toBe(true);
    if (target.includes('*')) expect(readdirSync(path).length, what).toBeGreaterThan(0);
    else expect(statSync(path).isFile(), what).toBe(true);
  }
  for (const [subpath] of targets.filter(([, , t]) => t.endsWith('.js') || t.endsWith('.ts'))) {
    const types = targets.find(([s, c]) => s === subpath && c === 'types');
    expect(types?.[2], `${pkg.name} exports ${subpath} with types`).toMatch(/\.d\.ts$/);
  }
  for (const [name, bin] of Object.entries(pkg.bin ?? {})) {
    expect(readFileSync(join(dir, bin), 'utf8'), `${pkg.name} bin ${name}`).toMatch(
      /^#!\/usr\/bin\/env node\n/,
    );
  }
}

/** Each module ships with its types and source map, and the sources the map names. */
export function expectModules(dir: string, files: ReadonlySet<string>): void {
  const modules = [...files].filter((f) => f.startsWith('dist/') && f.endsWith('.js'));
  expect(modules.length).toBeGreaterThan(0);
  for (const js of modules) {
    const types = typesOf(js);
    if (types) expect(files, `the types of ${js}`).toContain(types);
    if (isBundleEntry(js)) {
      // No code of its own to map: only its names, re-exported from the bundle's core.
      expect(readFileSync(join(dir, js), 'utf8'), js).toMatch(BUNDLE_ENTRY);
      continue;
    }
    expect(files, `${js}.map`).toContain(`${js}.map`);
    const map = JSON.parse(readFileSync(join(dir, `${js}.map`), 'utf8')) as { sources: string[] };
    for (const source of map.sources) {
      expect(files, `${js}.map names ${source}`).toContain(posix.join(posix.dirname(js), source));
    }
  }
}

/** No tests, build state or coverage (create-capstan's templates/ are the new project's files). */
export function expectNoTests(files: ReadonlySet<string>): void {
  const unwanted = [...files].filter(
    (f) =>
      !f.startsWith('templates/') &&
      (/(^|\/)(test|tests|__tests__|coverage)\//.test(f) ||
        /\.(test|spec)\.[cm]?[jt]s$/.test(f) ||
        f.endsWith('.tsbuildinfo')),
  );
  expect(unwanted).toEqual([]);
}
