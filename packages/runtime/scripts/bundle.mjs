#!/usr/bin/env node
/**
 * The runtime's JavaScript as Node loads it, in `dist/bundle/`: every module its entry points
 * (`.`, `./client`, `./manager`, ...) reach, bundled from what tsc built (`dist/**`) into a core
 * (`chunks/core.js` and the `chunks/shared-*.js` it shares with `./testing`'s own file), and each
 * entry point a one-line module re-exporting its names from it (one `Manager` class, one
 * `ApiError`, whichever entry point a program imports it from). Dependencies stay imports of
 * their packages.
 *
 * Why: Node 20's ESM loader costs about 0.4 ms per module (resolve, read, parse, link). The index
 * reaches ~120 per-file modules; code-split into chunks shared per entry point, a program
 * importing `.` and `./client` still loaded 17 files. From four it imports the runtime ~10 ms
 * sooner (measured: 38 against 51 ms), though the core holds the entry points it does not name
 * (their functions are only pre-parsed until called). `./testing` stays out of the core: all in
 * one file, an operator's idle RSS was ~1 MB higher.
 *
 * Run after `tsc -b` (`npm run build` runs both). Types and the per-file modules stay in `dist/`:
 * the types are what `exports` names for TypeScript, and the per-file modules are what the
 * operators' image bundles start from (the `@capstan/modules` condition).
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const runtime = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(await readFile(join(runtime, 'package.json'), 'utf8'));

/**
 * `exports` subpaths with the per-file module each re-exports, e.g. `./client` → `dist/client/index.js`;
 * a pattern (`./api/*`, the generated kinds) stands for every module its folder holds.
 */
function entryPoints(exports) {
  return Object.entries(exports).flatMap(([subpath, conditions]) => {
    const modules = conditions['@capstan/modules'];
    const bundled = conditions.import;
    if (!modules?.startsWith('./dist/') || !bundled?.startsWith('./dist/bundle/'))
      throw new Error(`${subpath}: exports must name ./dist/ (@capstan/modules) and ./dist/bundle/ (import)`);
    if (!subpath.includes('*'))
      return [{ subpath, modules: join(runtime, modules), out: bundled.slice('./dist/bundle/'.length) }];
    const folder = join(runtime, modules.slice(0, modules.indexOf('*')));
    return readdirSync(folder, { recursive: true })
      .filter((f) => f.endsWith('.js'))
      .sort()
      .map((f) => {
        const stem = f.slice(0, -'.js'.length);
        return {
          subpath: subpath.replace('*', stem),
          modules: join(folder, f),
          out: bundled.slice('./dist/bundle/'.length).replace('*', stem),
          fromPattern: true,
        };
      });
  });
}

const outdir = join(runtime, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });

/**
 * Which file of `dist/bundle/chunks/` holds an entry point's modules: `./testing` (fakes for
 * tests) and `./tsyringe` (the opt-in container adapter, which imports tsyringe and
 * reflect-metadata) have their own, so that an operator does not load them; the rest share the
 * core.
 */
const OWN_CHUNK = new Set(['./testing', './tsyringe']);
const groupOf = (subpath) => (OWN_CHUNK.has(subpath) ? subpath.slice(2) : 'core');

// The names each entry point exports at run time (types have none), read from tsc's modules.
const entries = [];
for (const [i, entry] of entryPoints(pkg.exports).entries()) {
  const names = Object.keys(await import(pathToFileURL(entry.modules).href)).sort();
  // A generated group/version may hold types only (meta/v1): its module stays empty.
  if (names.length === 0 && !entry.fromPattern)
    throw new Error(`${entry.subpath}: exports nothing at run time`);
  entries.push({ ...entry, names, group: groupOf(entry.subpath), alias: (name) => `e${i}_${name}` });
}

// A group exports its entry points' names under aliases of their own, so that two entry points
// exporting one name (the index re-exports others' classes) stay apart until the entry modules.
const groups = [...new Set(entries.map((e) => e.group))];
const groupEntry = (group) => join(runtime, 'dist', `bundle-${group}-entry.js`);
for (const group of groups) {
  const lines = entries
    .filter((e) => e.group === group)
    .map(
      (e) =>
        `export { ${e.names.map((n) => `${n} as ${e.alias(n)}`).join(', ')} } from ${JSON.stringify(e.modules)};`,
    );
  writeFileSync(groupEntry(group), `${lines.join('\n')}\n`);
}
try {
  await build({
    entryPoints: Object.fromEntries(groups.map((g) => [g, groupEntry(g)])),
    outdir: join(outdir, 'chunks'),
    bundle: true,
    // The groups share their common modules (ApiError, the client) as one more chunk.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Every dependency stays the user's to install and deduplicate.
    packages: 'external',
    // Maps through tsc's own maps, back to src/*.ts.
    sourcemap: 'linked',
    chunkNames: 'shared-[hash]',
    legalComments: 'none',
    logLevel: 'warning',
  });
} finally {
  for (const group of groups) rmSync(groupEntry(group), { force: true });
}

for (const e of entries) {
  const file = join(outdir, e.out);
  mkdirSync(dirname(file), { recursive: true });
  let from = relative(dirname(file), join(outdir, 'chunks', `${e.group}.js`));
  if (!from.startsWith('.')) from = `./${from}`;
  const names = e.names.map((n) => `${e.alias(n)} as ${n}`).join(', ');
  writeFileSync(
    file,
    `// ${e.subpath} of @capstan/runtime (scripts/bundle.mjs).\nexport { ${names} } from ${JSON.stringify(from)};\n`,
  );
}
