#!/usr/bin/env node
// Committed launcher: `npm ci` links a package's bin only if the file exists at install time, and
// dist/ does not exist on a fresh clone. Without a linked bin, `npx capstan-envtest` would ask the
// npm registry for a package of that name instead.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write('capstan-envtest: not built yet; run `npm run build` in the repository first\n');
  process.exit(1);
}
await import(cli.href);
