/**
 * Type-checks objects as the server sent them against the generated types: each becomes a typed
 * constant of a TypeScript module compiled with tsc's API (strict; excess fields and values outside
 * an enum are errors, as in code).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const generated = fileURLToPath(new URL('../../src/api/generated', import.meta.url));

/** An object and the generated type it should have: `Deployment` of module `apps/v1`. */
export interface TypedObject {
  module: string;
  kind: string;
  object: unknown;
}

/** tsc's errors, each prefixed with the module and kind of the object it is about. */
export function typeErrors(objects: TypedObject[]): string[] {
  const modules = [...new Set(objects.map((o) => o.module))].sort();
  const alias = (module: string) => `m${modules.indexOf(module)}`;
  const lines = [
    ...modules.map((m) => `import type * as ${alias(m)} from '${generated}/${m}.js';`),
    ...objects.map(
      (o, i) => `export const o${i}: ${alias(o.module)}.${o.kind} = ${JSON.stringify(o.object)};`,
    ),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'capstan-type-check-'));
  const file = join(dir, 'objects.ts');
  writeFileSync(file, `${lines.join('\n')}\n`);
  try {
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: [],
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
      const about = objects[line - modules.length];
      const where = about ? `${about.module} ${about.kind}` : (d.file?.fileName ?? '');
      return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
