/**
 * The operator shape (docs/ARCHITECTURE.md, "One operator shape"), as findings about a project
 * folder: `src/api/` (the kinds), `src/decide/` (pure decisions: no I/O module, nothing from the
 * wiring), the reconciler(s), `src/flags.ts` exporting `parse<X>Args`, a short `src/main.ts` that
 * goes through it and `add<X>`, `src/operator.ts` declaring `add<X>(manager: Manager, …)` and
 * `src/index.ts` exporting it, and `deploy/kustomization.yaml` whose resources exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { parse } from 'yaml';

/** At most this many lines in `src/main.ts`: flags → manager → `add<X>` → run, no more. */
export const MAIN_MAX_LINES = 40;

/** Modules a pure decision never imports: they reach the file system, the network or processes. */
const IO_MODULES = /^node:(fs|fs\/promises|http|https|http2|net|tls|dgram|child_process|worker_threads)$/;

/** Wiring modules (at `src/`) a decision never imports: the dependency goes the other way. */
const WIRING = /^\.\.\/(reconciler|operator|main|flags|index)\.js$|\/reconciler\.js$/;

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function sourceOf(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The module specifiers a file imports or re-exports. */
function specifiersOf(source: ts.SourceFile): string[] {
  return source.statements.flatMap((s) =>
    (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) &&
    s.moduleSpecifier &&
    ts.isStringLiteral(s.moduleSpecifier)
      ? [s.moduleSpecifier.text]
      : [],
  );
}

const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The exported function of that name in a file, if any. */
function exportedFunction(source: ts.SourceFile, name: string): ts.FunctionDeclaration | undefined {
  return source.statements.find(
    (s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === name && isExported(s),
  );
}

/** Whether `index.ts` exports `name` from `./operator.js` (by name, or by `export *`). */
function indexExports(source: ts.SourceFile, name: string): boolean {
  return source.statements.some((s) => {
    if (!ts.isExportDeclaration(s) || !s.moduleSpecifier || !ts.isStringLiteral(s.moduleSpecifier))
      return false;
    if (s.moduleSpecifier.text !== './operator.js') return false;
    const clause = s.exportClause;
    if (clause === undefined) return true;
    return ts.isNamedExports(clause) && clause.elements.some((e) => e.name.text === name);
  });
}

function decideFindings(src: string): string[] {
  const files = tsFiles(join(src, 'decide'));
  if (files.length === 0) return ['src/decide/ holds no pure decision (.ts file)'];
  return files.flatMap((file) => {
    const at = file.slice(src.length - 'src'.length);
    return specifiersOf(sourceOf(file)).flatMap((spec) => {
      if (IO_MODULES.test(spec)) return [`${at} imports ${spec}: a decision does no I/O`];
      if (WIRING.test(spec)) return [`${at} imports ${spec}: a decision never imports the wiring`];
      return [];
    });
  });
}

function flagsAndMainFindings(src: string, x: string): string[] {
  const findings: string[] = [];
  const flags = join(src, 'flags.ts');
  if (!existsSync(flags)) findings.push('no src/flags.ts');
  else if (!exportedFunction(sourceOf(flags), `parse${x}Args`))
    findings.push(`src/flags.ts exports no function parse${x}Args`);
  const main = join(src, 'main.ts');
  if (!existsSync(main)) return [...findings, 'no src/main.ts'];
  const text = readFileSync(main, 'utf8');
  const lines = text.trimEnd().split('\n').length;
  if (lines > MAIN_MAX_LINES) findings.push(`src/main.ts is ${lines} lines (at most ${MAIN_MAX_LINES})`);
  for (const called of [`parse${x}Args(`, `add${x}(`])
    if (!text.includes(called)) findings.push(`src/main.ts does not call ${called.slice(0, -1)}`);
  return findings;
}

function wiringFindings(src: string, x: string): string[] {
  const findings: string[] = [];
  const operator = join(src, 'operator.ts');
  const add = existsSync(operator) ? exportedFunction(sourceOf(operator), `add${x}`) : undefined;
  if (!add) findings.push(`src/operator.ts declares no exported function add${x}`);
  else if (add.parameters[0]?.type?.getText() !== 'Manager')
    findings.push(`add${x}'s first parameter is not a Manager`);
  const index = join(src, 'index.ts');
  if (!existsSync(index) || !indexExports(sourceOf(index), `add${x}`))
    findings.push(`src/index.ts does not export add${x} from ./operator.js`);
  const reconcilers = [
    join(src, 'reconciler.ts'),
    ...tsFiles(src).filter((f) => f.endsWith('/reconciler.ts')),
  ];
  if (!reconcilers.some((f) => existsSync(f)))
    findings.push('no reconciler (src/reconciler.ts or src/*/reconciler.ts)');
  return findings;
}

function deployFindings(root: string): string[] {
  const file = join(root, 'deploy/kustomization.yaml');
  if (!existsSync(file)) return ['no deploy/kustomization.yaml'];
  const { kind, resources } = (parse(readFileSync(file, 'utf8')) ?? {}) as {
    kind?: string;
    resources?: unknown;
  };
  if (kind !== 'Kustomization') return ['deploy/kustomization.yaml is not a Kustomization'];
  if (!Array.isArray(resources) || resources.length === 0)
    return ['deploy/kustomization.yaml lists no resources'];
  return resources
    .filter((r) => typeof r !== 'string' || !existsSync(join(root, 'deploy', r)))
    .map((r) => `deploy/kustomization.yaml lists ${String(r)}, which deploy/ does not hold`);
}

/**
 * Where a project folder departs from the operator shape; empty when it has it.
 * @param x the operator's name as `add<X>` and `parse<X>Args` spell it (`VersionOperator`).
 */
export function shapeFindings(root: string, x: string): string[] {
  const src = join(root, 'src');
  const api = tsFiles(join(src, 'api'));
  return [
    ...(api.length === 0 ? ['src/api/ holds no kind (.ts file)'] : []),
    ...decideFindings(src),
    ...flagsAndMainFindings(src, x),
    ...wiringFindings(src, x),
    ...deployFindings(root),
  ];
}
