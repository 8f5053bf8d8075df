#!/usr/bin/env node
/**
 * `npm run bundle`: one tree-shaken ESM file per operator, for its image: `node dist/main.bundle.mjs`
 * loads only the code its main reaches (client-node's generated API clients, the workspace's other
 * exports and the CLI helpers it never calls stay out), where `node dist/main.js` loads every
 * module the packages import. Run after `npm run build` (it bundles the compiled dist/main.js).
 *
 * Nothing is removed from the library: @capstan/runtime still loads kubeconfig and every auth
 * flavour (certs, tokens, token files, exec plugins, in-cluster) through client-node's KubeConfig.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The operators that ship as images, by package folder. */
export const OPERATORS = ['agent', 'coordinator'];

/** Bundles `packages/<name>/dist/main.js` into `packages/<name>/dist/main.bundle.mjs`; returns its path. */
export async function bundleOperator(name) {
  const outfile = join(root, 'packages', name, 'dist', 'main.bundle.mjs');
  await build({
    entryPoints: [join(root, 'packages', name, 'dist', 'main.js')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Source conditions would pull the .ts sources; the bundle is made of what tsc built.
    conditions: ['import', 'node'],
    // dbus-next's optional native helpers (abstract sockets, X11 session bus discovery): unused.
    external: ['usocket', 'x11'],
    // CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __capstanRequire } from 'node:module';\nconst require = __capstanRequire(import.meta.url);",
    },
    legalComments: 'none',
    logLevel: 'warning',
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of OPERATORS) process.stdout.write(`${await bundleOperator(name)}\n`);
}
