#!/usr/bin/env node
/**
 * The runtime's JavaScript as Node loads it: its entry points (`.`, `./client`, `./manager`, ...)
 * bundled from what tsc built (`dist/**`) into `dist/bundle/`, code-split so the entry points
 * share their modules as chunks (one `Manager` class, one `ApiError`, whichever entry point a
 * program imports it from). Dependencies stay imports of their packages.
 *
 * Why: Node 20's ESM loader costs about 0.4 ms per module (read, parse, link), and the index
 * reaches ~120 of them. A program importing `@capstan/runtime` started ~40 ms sooner from ~25
 * files than from ~120 (the bench's fresh-process read, see docs/ARCHITECTURE.md).
 *
 * Run after `tsc -b` (`npm run build` runs both). Types and the per-file modules stay in `dist/`:
 * the types are what `exports` names for TypeScript, and the per-file modules are what the
 * operators' image bundles start from (the `@capstan/modules` condition).
 */
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const runtime = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(await readFile(join(runtime, 'package.json'), 'utf8'));

/** `exports` subpaths with the per-file module each bundles, e.g. `./client` → `dist/client/index.js`. */
function entryPoints(exports) {
  return Object.entries(exports).map(([subpath, conditions]) => {
    const modules = conditions['@capstan/modules'];
    const bundled = conditions.import;
    if (!modules?.startsWith('./dist/') || !bundled?.startsWith('./dist/bundle/'))
      throw new Error(`${subpath}: exports must name ./dist/ (@capstan/modules) and ./dist/bundle/ (import)`);
    return { in: join(runtime, modules), out: bundled.slice('./dist/bundle/'.length).replace(/\.js$/, '') };
  });
}

const outdir = join(runtime, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: entryPoints(pkg.exports),
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Every dependency stays the user's to install and deduplicate.
  packages: 'external',
  // Maps through tsc's own maps, back to src/*.ts.
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'none',
  logLevel: 'warning',
});
