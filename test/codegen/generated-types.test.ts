/**
 * The operators' generated CRD types are what `capstan gen types` writes from their CRDs today:
 * a CRD changed (by hand or by a merge) without `npm run gen` fails here, naming the file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genTypesFiles } from '../../packages/cli/src/gen/files.js';
import { root } from '../packaging/packages.js';

interface Target {
  inputs: string[];
  output: string;
}

const targets = JSON.parse(readFileSync(join(root, 'scripts/generated-types.json'), 'utf8')) as Target[];

describe('the generated CRD types', () => {
  it('cover the coordinator, the version operator and capvcd', () => {
    expect(targets.map((t) => t.output.split('/')[1])).toEqual(['coordinator', 'version-operator', 'capvcd']);
  });

  it.each(targets)('$output is up to date with its CRDs', ({ inputs, output }) => {
    const { outcome } = genTypesFiles({
      inputs: inputs.map((f) => join(root, f)),
      output: join(root, output),
      sourceBase: root,
      check: true,
    });
    expect(outcome, `${output} is stale: run \`npm run gen\``).toBe('unchanged');
  });
});
