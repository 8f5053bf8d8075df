/**
 * The runtime's layer rule, read from the table that states it (docs/ARCHITECTURE.md, "The
 * runtime's layers and subpaths": each layer only uses those above it) and checked against the
 * imports TypeScript's own parser finds in every source file: static imports and re-exports
 * (type-only ones too: a type is a dependency on its layer's concept), `import()` calls and
 * `import('…')` types.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** A row of the table: the folders (`log/`) or root files (`clock.ts`) its first column names. */
export type LayerTable = readonly (readonly string[])[];

/** An import that goes down the table, or a file no row of the table names. */
export interface LayerViolation {
  file: string;
  imports?: string;
  reason: string;
}

const SECTION = "## The runtime's layers and subpaths";

/** The layers in order, from the section's table: the back-quoted names of each row's first cell. */
export function readLayerTable(markdown: string): LayerTable {
  const start = markdown.indexOf(SECTION);
  if (start < 0) throw new Error(`no "${SECTION}" section`);
  const rows = markdown
    .slice(start)
    .split('\n')
    .slice(1)
    .filter((line) => line.startsWith('|'));
  const layers = rows
    .slice(2) // the header and its separator
    .map((row) => [...(row.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''))
    .filter((names) => names.length > 0);
  if (layers.length === 0) throw new Error(`the "${SECTION}" table names no layer`);
  return layers;
}

/** Every `.ts` file under a folder, as paths relative to it with `/` separators. */
function sourceFiles(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(root, path);
    return path.endsWith('.ts') ? [relative(root, path).split(sep).join('/')] : [];
  });
}

/** The relative module specifiers a source file names, found by TypeScript's parser. */
export function importsOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const add = (node: ts.Node | undefined) => {
    if (node && ts.isStringLiteralLike(node) && node.text.startsWith('.')) found.push(node.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The row index of a source path (`cache/store.ts`), or undefined if no row names it. */
function layerOf(table: LayerTable, path: string): number | undefined {
  const row = table.findIndex((names) =>
    names.some((name) => (name.endsWith('/') ? path.startsWith(name) : path === name)),
  );
  return row < 0 ? undefined : row;
}

/**
 * The imports under `srcRoot` that go down the table, and the files it does not place. The root
 * `index.ts` (the package's entry point, re-exporting every layer) is in no layer.
 */
export function layerViolations(srcRoot: string, table: LayerTable): LayerViolation[] {
  const violations: LayerViolation[] = [];
  for (const file of sourceFiles(srcRoot)) {
    if (file === 'index.ts') continue;
    const own = layerOf(table, file);
    if (own === undefined) {
      violations.push({ file, reason: 'in no layer of the table' });
      continue;
    }
    for (const specifier of importsOf(file, readFileSync(join(srcRoot, file), 'utf8'))) {
      const target = relative(srcRoot, resolve(dirname(join(srcRoot, file)), specifier))
        .split(sep)
        .join('/')
        .replace(/\.js$/, '.ts');
      const theirs = layerOf(table, target);
      if (theirs === undefined || theirs > own)
        violations.push({
          file,
          imports: target,
          reason: theirs === undefined ? 'imports outside the table' : 'imports a layer below its own',
        });
    }
  }
  return violations;
}
