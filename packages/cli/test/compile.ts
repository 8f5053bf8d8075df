/**
 * Type-checks modules the way a user's project does: tsc strict with exactOptionalPropertyTypes
 * and noUncheckedIndexedAccess, NodeNext modules, `@capstan/runtime` from its built types.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const runtimeTypes = fileURLToPath(new URL('../../runtime/dist/index.d.ts', import.meta.url));

/** The errors tsc reports for `files` (path → text), each as `file:line: message`. */
export function typeErrors(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-gen-'));
  try {
    const paths = Object.entries(files).map(([path, text]) => {
      const full = join(dir, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
      return full;
    });
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    const program = ts.createProgram(paths, {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
      paths: { '@capstan/runtime': [runtimeTypes] },
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file || d.start === undefined) return message;
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${d.file.fileName.slice(dir.length + 1)}:${line + 1}: ${message}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The literal values of a union type's text (`'a' | 1 | null`), read back by the TypeScript parser. */
export function unionValues(typeText: string): unknown[] {
  const file = ts.createSourceFile('t.ts', `type T = ${typeText};`, ts.ScriptTarget.ES2022);
  const alias = file.statements[0] as ts.TypeAliasDeclaration;
  const members = ts.isUnionTypeNode(alias.type) ? alias.type.types : [alias.type];
  return members.map((node) => {
    if (!ts.isLiteralTypeNode(node)) throw new Error(`not a literal type: ${node.getText(file)}`);
    const lit = node.literal;
    if (ts.isStringLiteral(lit)) return lit.text;
    if (ts.isNumericLiteral(lit)) return Number(lit.text);
    if (lit.kind === ts.SyntaxKind.PrefixUnaryExpression) return Number(lit.getText(file));
    if (lit.kind === ts.SyntaxKind.TrueKeyword) return true;
    if (lit.kind === ts.SyntaxKind.FalseKeyword) return false;
    if (lit.kind === ts.SyntaxKind.NullKeyword) return null;
    throw new Error(`unexpected literal ${lit.getText(file)}`);
  });
}
