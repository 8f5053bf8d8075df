/**
 * What each published package ships, checked on `npm pack --dry-run`: its README and LICENSE, its
 * metadata, every export and bin target, the JavaScript with its types and source maps (and the
 * sources the maps point at), and no tests. Runs on the built dist (`npm run build` first).
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHED, packedFiles, readPackageJson, root, workspaceFolders } from './packages.js';

let packed: Map<string, string[]>;
beforeAll(() => {
  packed = packedFiles(PUBLISHED);
});

const exportTargets = (exports: Record<string, string | Record<string, string>> = {}) =>
  Object.values(exports).flatMap((target) =>
    typeof target === 'string'
      ? []
      : Object.entries(target)
          .filter(([condition]) => ['types', 'import', '@capstan/modules'].includes(condition))
          .map(([, path]) => path),
  );

/**
 * The declarations of a shipped module: its own `.d.ts` beside it, or for an entry point of the
 * runtime's bundle (`dist/bundle/<path>`) those of the per-file module it bundles (`dist/<path>`).
 * The bundle's chunks (`dist/bundle/chunks/`: core, testing, what they share) are internal: no
 * declarations.
 */
function typesOf(js: string): string | undefined {
  if (js.startsWith('dist/bundle/chunks/')) return undefined;
  return js.replace(/^dist\/bundle\//, 'dist/').replace(/\.js$/, '.d.ts');
}

/** An entry point of the runtime's bundle: a module that re-exports names from its core (or testing). */
function isBundleEntry(js: string): boolean {
  return js.startsWith('dist/bundle/') && !js.startsWith('dist/bundle/chunks/');
}
const BUNDLE_ENTRY = /^\/\/ [^\n]*\nexport \{ [^}]+ \} from "(\.\.\/)*(\.\/)?chunks\/(core|testing)\.js";\n$/;

describe('the published packages', () => {
  it('are every workspace package not marked private', () => {
    const published = workspaceFolders().filter((dir) => !readPackageJson(dir).private);
    expect(published.sort()).toEqual([...PUBLISHED].sort());
  });

  describe.each(PUBLISHED)('%s', (dir) => {
    const pkg = readPackageJson(dir);
    const files = () => new Set(packed.get(dir));

    it('has a description, keywords, the repository folder and the Apache-2.0 license', () => {
      expect(pkg.description?.length).toBeGreaterThan(20);
      expect(pkg.keywords?.length).toBeGreaterThan(0);
      expect(pkg.repository).toMatchObject({ type: 'git', directory: dir });
      expect(pkg.license).toBe('Apache-2.0');
      expect(readFileSync(join(root, dir, 'LICENSE'), 'utf8')).toContain('Apache License');
    });

    it('ships its README, LICENSE, every export and bin target', () => {
      const shipped = files();
      const wanted = ['README.md', 'LICENSE', 'package.json', ...exportTargets(pkg.exports)];
      for (const bin of Object.values(pkg.bin ?? {})) wanted.push(posix.normalize(bin));
      for (const path of wanted) expect(shipped, `${dir} ships ${path}`).toContain(posix.normalize(path));
    });

    it('ships each module with its types and source map, and the sources the maps name', () => {
      const shipped = files();
      const modules = [...shipped].filter((f) => f.startsWith('dist/') && f.endsWith('.js'));
      expect(modules.length).toBeGreaterThan(0);
      for (const js of modules) {
        const types = typesOf(js);
        if (types) expect(shipped, `${dir}: the types of ${js}`).toContain(types);
        if (isBundleEntry(js)) {
          // No code of its own to map: only its names, re-exported from the bundle's core.
          expect(readFileSync(join(root, dir, js), 'utf8'), js).toMatch(BUNDLE_ENTRY);
          continue;
        }
        expect(shipped, `${dir}: ${js}.map`).toContain(`${js}.map`);
        const map = JSON.parse(readFileSync(join(root, dir, `${js}.map`), 'utf8')) as { sources: string[] };
        for (const source of map.sources) {
          expect(shipped, `${dir}: ${js}.map names ${source}`).toContain(
            posix.join(posix.dirname(js), source),
          );
        }
      }
    });

    it('ships no tests, build state or fixtures', () => {
      // create-capstan's templates/ are the new project's files, its test included, not ours
      const unwanted = [...files()].filter(
        (f) =>
          !f.startsWith('templates/') &&
          (/(^|\/)(test|tests|__tests__|coverage)\//.test(f) ||
            /\.(test|spec)\.[cm]?[jt]s$/.test(f) ||
            f.endsWith('.tsbuildinfo')),
      );
      expect(unwanted).toEqual([]);
    });
  });

  it('the operators install their programs as commands', () => {
    expect(readPackageJson('packages/coordinator').bin).toEqual({ 'capstan-coordinator': './dist/main.js' });
    expect(readPackageJson('packages/agent').bin).toEqual({ 'capstan-agent': './dist/main.js' });
    expect(readPackageJson('packages/envtest').bin).toEqual({
      'capstan-envtest': './bin/capstan-envtest.js',
    });
  });
});
