/**
 * What Node loads for `@capstan/runtime`: the bundle `npm run build` makes of its entry points
 * (packages/runtime/scripts/bundle.mjs), checked in a plain Node process as a program importing
 * the package sees it (vitest itself reads the sources). Runs on the built dist.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPackageJson, root } from './packages.js';

const runtime = join(root, 'packages', 'runtime');
type Conditions = Record<string, string>;
const declared = readPackageJson('packages/runtime').exports as unknown as Record<string, Conditions>;

/** The exports, a pattern (`./api/*`) expanded to each generated group/version it stands for. */
const exportsMap: Record<string, Conditions> = Object.fromEntries(
  Object.entries(declared).flatMap(([subpath, conditions]) => {
    if (!subpath.includes('*')) return [[subpath, conditions]];
    const source = join(runtime, conditions['@capstan/source']?.split('*')[0] ?? '');
    return readdirSync(source, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .sort()
      .map((f) => {
        const stem = f.slice(0, -'.ts'.length);
        const each = Object.fromEntries(
          Object.entries(conditions).map(([c, path]) => [c, path.replace('*', stem)]),
        );
        return [subpath.replace('*', stem), each];
      });
  }),
);

/** Runs ESM `code` in a new Node process from the runtime's folder; returns its JSON output. */
function inNode(code: string): unknown {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: runtime,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return JSON.parse(out);
}

describe("the runtime's bundle", () => {
  it('is what every export resolves to, and holds each module once for all of them', () => {
    const subpaths = Object.keys(exportsMap).map((k) =>
      k === '.' ? '@capstan/runtime' : `@capstan/runtime/${k.slice(2)}`,
    );
    const result = inNode(
      [
        `const subpaths = ${JSON.stringify(subpaths)};`,
        'const resolved = subpaths.map((s) => import.meta.resolve(s));',
        'const [index, client, manager, controller] = await Promise.all(',
        "  ['@capstan/runtime', '@capstan/runtime/client', '@capstan/runtime/manager', '@capstan/runtime/controller'].map((s) => import(s)),",
        ');',
        'for (const s of subpaths) await import(s);',
        'console.log(JSON.stringify({',
        "  resolved: resolved.map((u) => u.replace(/^.*\\/packages\\/runtime\\//, '')),",
        '  sameApiError: index.ApiError === client.ApiError,',
        '  sameManager: index.Manager === manager.Manager,',
        '  sameRequestKey: index.requestKey === controller.requestKey,',
        '}));',
      ].join('\n'),
    ) as { resolved: string[]; sameApiError: boolean; sameManager: boolean; sameRequestKey: boolean };
    expect(result.resolved).toEqual(Object.values(exportsMap).map((c) => c.import?.slice(2)));
    for (const path of result.resolved) expect(path).toMatch(/^dist\/bundle\//);
    expect(result).toMatchObject({ sameApiError: true, sameManager: true, sameRequestKey: true });
  });

  it('was made after the per-file modules were last built (run `npm run build`, not only tsc -b)', () => {
    const dist = join(runtime, 'dist');
    // The modules tsc built from src (not the bundle, nor files other tests drop into dist).
    const modules = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.js') && existsSync(join(runtime, 'src', f.replace(/\.js$/, '.ts'))),
    );
    expect(modules.length).toBeGreaterThan(50);
    const newest = modules.reduce(
      (best, f) => {
        const mtime = statSync(join(dist, f)).mtimeMs;
        return mtime > best.mtime ? { file: f, mtime } : best;
      },
      { file: '', mtime: 0 },
    );
    for (const [subpath, conditions] of Object.entries(exportsMap)) {
      expect(conditions['@capstan/modules'], `${subpath}: @capstan/modules`).toBeDefined();
      const bundled = conditions.import as string;
      const mtime = statSync(join(runtime, bundled)).mtimeMs;
      expect(mtime, `${bundled} is older than dist/${newest.file}: run npm run build`).toBeGreaterThanOrEqual(
        newest.mtime,
      );
    }
  });
});
