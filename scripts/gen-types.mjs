// `npm run gen`: the TypeScript types of our operators' CRDs, written by `capstan gen types` from
// the CRD files `scripts/generated-types.json` lists (`--check`: compare, write nothing).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { genTypesFiles } from '../packages/cli/dist/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');
const targets = JSON.parse(readFileSync(join(root, 'scripts/generated-types.json'), 'utf8'));
let stale = 0;
for (const { inputs, output } of targets) {
  const { outcome } = genTypesFiles({
    inputs: inputs.map((f) => join(root, f)),
    output: join(root, output),
    check,
    sourceBase: root,
  });
  if (outcome === 'stale') stale++;
  process.stderr.write(`${output} ${outcome}\n`);
}
if (stale > 0) {
  process.stderr.write('run `npm run gen`\n');
  process.exitCode = 1;
}
