/**
 * One operator shape, held: the four operators, every example that is a program (a `bin`), and
 * the project `npm create capstan` writes all have it; a project laid out wrongly is told, finding
 * by finding, where it departs.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { skeletonFiles, writeSkeleton } from '../../packages/create-capstan/src/skeleton.js';
import { MAIN_MAX_LINES, shapeFindings } from './operator-shape.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'capstan-shape-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `version-operator` → `VersionOperator`: how `add<X>` and `parse<X>Args` spell a folder's name. */
const pascal = (name: string) => name.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/** Examples that are programs (a `bin`); the others (key-count) show one reconciler as a library. */
const programExamples = readdirSync(join(repo, 'examples')).filter((name) => {
  const pkg = JSON.parse(readFileSync(join(repo, 'examples', name, 'package.json'), 'utf8')) as {
    bin?: unknown;
  };
  return pkg.bin !== undefined;
});

/** A fresh scaffold in its own folder. */
function scaffold(name: string): string {
  const dir = join(work, name);
  writeSkeleton(dir, skeletonFiles(name, { capstan: '0.1.0' }));
  return dir;
}

describe('the operator shape', () => {
  const operators = [
    ...['coordinator', 'agent', 'version-operator', 'capvcd'].map((name) => `packages/${name}`),
    ...programExamples.map((name) => `examples/${name}`),
  ];

  it('finds the greeting example among the programs', () => {
    expect(programExamples).toContain('greeting');
  });

  it.each(operators)('%s has it', (dir) => {
    const name = dir.split('/')[1] ?? '';
    expect(shapeFindings(join(repo, dir), pascal(name))).toEqual([]);
  });

  it("npm create capstan's project has it", () => {
    expect(shapeFindings(scaffold('shape-ok'), 'Widget')).toEqual([]);
  });
});

describe('a project laid out wrongly', () => {
  const breakages: [string, (dir: string) => void, string][] = [
    [
      'no decide/',
      (d) => rmSync(join(d, 'src/decide'), { recursive: true }),
      'src/decide/ holds no pure decision',
    ],
    [
      'a decision doing I/O',
      (d) => writeFileSync(join(d, 'src/decide/read.ts'), "import { readFileSync } from 'node:fs';\n"),
      'src/decide/read.ts imports node:fs',
    ],
    [
      'a decision importing the reconciler',
      (d) => writeFileSync(join(d, 'src/decide/up.ts'), "export * from '../reconciler.js';\n"),
      'src/decide/up.ts imports ../reconciler.js',
    ],
    ['no api/', (d) => rmSync(join(d, 'src/api'), { recursive: true }), 'src/api/ holds no kind'],
    [
      'flags without parse<X>Args',
      (d) => rewrite(d, 'src/flags.ts', (t) => t.replace('parseWidgetArgs', 'parseArgs')),
      'src/flags.ts exports no function parseWidgetArgs',
    ],
    [
      'a long main',
      (d) => rewrite(d, 'src/main.ts', (t) => t + '// more\n'.repeat(MAIN_MAX_LINES)),
      'src/main.ts is',
    ],
    [
      'the wiring in reconciler.ts',
      (d) => rmSync(join(d, 'src/operator.ts')),
      'src/operator.ts declares no exported function addWidget',
    ],
    [
      'add<X> not taking a Manager',
      (d) => rewrite(d, 'src/operator.ts', (t) => t.replace('(manager: Manager)', '(manager: unknown)')),
      "addWidget's first parameter is not a Manager",
    ],
    [
      'an index without add<X>',
      (d) => rewrite(d, 'src/index.ts', (t) => t.replace("export { addWidget } from './operator.js';\n", '')),
      'src/index.ts does not export addWidget',
    ],
    ['no reconciler', (d) => rmSync(join(d, 'src/reconciler.ts')), 'no reconciler'],
    ['no kustomization', (d) => rmSync(join(d, 'deploy/kustomization.yaml')), 'no deploy/kustomization.yaml'],
    [
      'a kustomization naming a missing file',
      (d) => rmSync(join(d, 'deploy/rbac.yaml')),
      'deploy/kustomization.yaml lists rbac.yaml, which deploy/ does not hold',
    ],
  ];

  it.each(breakages)('is told: %s', (_, breakIt, finding) => {
    const dir = scaffold(`shape-${breakages.findIndex(([what]) => what === _)}`);
    breakIt(dir);
    const findings = shapeFindings(dir, 'Widget');
    expect(findings.some((f) => f.startsWith(finding))).toBe(true);
  });
});

function rewrite(dir: string, path: string, change: (text: string) => string): void {
  const file = join(dir, path);
  const before = readFileSync(file, 'utf8');
  const after = change(before);
  expect(after).not.toBe(before);
  writeFileSync(file, after);
}
