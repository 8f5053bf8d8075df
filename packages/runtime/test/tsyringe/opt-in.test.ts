/**
 * The tsyringe adapter is opt-in: no entry point but `./tsyringe` reaches tsyringe or
 * reflect-metadata, in the bundle Node loads or in a fresh process importing them all.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const runtime = fileURLToPath(new URL('../..', import.meta.url));
const bundle = join(runtime, 'dist', 'bundle');
const own = new Set(['chunks/tsyringe.js', 'tsyringe/index.js']);
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  );
const subpaths = Object.keys(
  (JSON.parse(readFileSync(join(runtime, 'package.json'), 'utf8')) as { exports: Record<string, unknown> })
    .exports,
);

describe('@capstan/runtime/tsyringe', () => {
  it('is the only bundle file that imports tsyringe or reflect-metadata', () => {
    const importing = files(bundle)
      .map((f) => relative(bundle, f))
      .filter((f) =>
        /from\s*["'](tsyringe|reflect-metadata)["']|import\s*["']reflect-metadata["']/.test(
          readFileSync(join(bundle, f), 'utf8'),
        ),
      );
    expect(importing.sort()).toEqual([...own].filter((f) => f.startsWith('chunks/')));
  });

  it('leaves Reflect without metadata in a process that imports every other entry point', () => {
    // A pattern export (`./api/*`) stands for its modules: one of them is imported in its place.
    const others = subpaths
      .filter((s) => s !== './tsyringe')
      .map((s) => `@capstan/runtime${s.slice(1).replace('*', 'core/v1')}`);
    const script = `${others.map((s) => `await import(${JSON.stringify(s)});`).join('')}
      const before = typeof Reflect.getMetadata;
      await import('@capstan/runtime/tsyringe');
      console.log(before, typeof Reflect.getMetadata);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: runtime,
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('undefined function');
  });
});
