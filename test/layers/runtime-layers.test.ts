import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf, layerViolations, readLayerTable } from './layer-table.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

describe("the runtime's layer table", () => {
  const table = readLayerTable(readFileSync(here('../../docs/ARCHITECTURE.md'), 'utf8'));

  it('places every source file, and no import goes down it', () => {
    expect(table.flat()).toContain('clock.ts');
    expect(layerViolations(here('../../packages/runtime/src'), table)).toEqual([]);
  });

  it('fails on an import down the table and a file outside it (the fixture)', () => {
    const fixture = readLayerTable(readFileSync(here('fixture/ARCHITECTURE.md'), 'utf8'));
    expect(fixture).toEqual([['clock.ts'], ['client/'], ['cache/']]);
    expect(layerViolations(here('fixture/src'), fixture)).toEqual([
      { file: 'client/client.ts', imports: 'cache/store.ts', reason: 'imports a layer below its own' },
      { file: 'client/lazy.ts', imports: 'cache/store.ts', reason: 'imports a layer below its own' },
      { file: 'stray/stray.ts', reason: 'in no layer of the table' },
    ]);
  });

  it('reads imports, re-exports, import() calls and import types, not strings that look alike', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export * from './c.js';",
      "const d = await import('./d.js');",
      "type E = import('./e.js').E;",
      'const f = "import { f } from \'./f.js\'";',
      "import { readFile } from 'node:fs';",
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual(['./a.js', '../b.js', './c.js', './d.js', './e.js']);
  });
});
