#!/usr/bin/env node
// Committed launcher: `npm ci` links a package's bin (and makes it executable) only if the file
// exists at install time, and dist/ does not exist on a fresh clone: the operators' `npm run
// gen:rbac` would then find a `capstan` it may not execute.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('capstan: not built yet; run `npm run build` in the repository first\n');
  process.exit(1);
}
await import(main.href);
