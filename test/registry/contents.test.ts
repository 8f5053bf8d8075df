/**
 * The published-contents checks fail on the faults they are there for: a package folder written
 * here, sound, then broken one way at a time (no registry needed).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PackageJson } from '../packaging/packages.js';
import { expectEntryPoints, expectManifest, expectModules, expectNoTests, filesUnder } from './contents.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Manifest = PackageJson & { engines?: Record<string, string> };
const sound: Manifest = {
  name: '@capstan/sample',
  version: '0.1.0',
  license: 'Apache-2.0',
  engines: { node: '>=20.19' },
  exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' }, './deploy/*': './deploy/*' },
  bin: { sample: './dist/index.js' },
};

/** A package folder: a sound one, with `change` applied to its files. */
function packageDir(change: (files: Map<string, string>) => void = () => {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-contents-'));
  dirs.push(dir);
  const files = new Map([
    ['LICENSE', 'Apache License\nVersion 2.0\n'],
    ['README.md', '# sample\n'],
    ['dist/index.js', '#!/usr/bin/env node\nexport const x = 1;\n'],
    ['dist/index.d.ts', 'export declare const x = 1;\n'],
    ['dist/index.js.map', JSON.stringify({ sources: ['../src/index.ts'] })],
    ['src/index.ts', 'export const x = 1;\n'],
    ['deploy/crd.yaml', 'kind: CustomResourceDefinition\n'],
  ]);
  change(files);
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const checkAll = (dir: string, manifest: Manifest = sound) => {
  const files = new Set(filesUnder(dir));
  expectManifest(dir, manifest);
  expectEntryPoints(dir, manifest);
  expectModules(dir, files);
  expectNoTests(files);
};

describe('the published-contents checks', () => {
  it('pass a sound package', () => {
    expect(() => checkAll(packageDir())).not.toThrow();
  });

  it.each([
    ['another license', { license: 'MIT' }],
    ['no engines', { engines: undefined }],
    [
      'an export whose file is missing',
      { exports: { '.': { types: './dist/index.d.ts', import: './dist/gone.js' } } },
    ],
    ['an export without types', { exports: { '.': { import: './dist/index.js' } } }],
    ['a bin that is missing', { bin: { sample: './bin/sample.js' } }],
  ] as const)('fail a manifest with %s', (_, change) => {
    expect(() => checkAll(packageDir(), { ...sound, ...change } as Manifest)).toThrow();
  });

  it.each([
    ['no LICENSE', (f: Map<string, string>) => f.delete('LICENSE')],
    ['a module without its .d.ts', (f: Map<string, string>) => f.delete('dist/index.d.ts')],
    ['a module without its source map', (f: Map<string, string>) => f.delete('dist/index.js.map')],
    ['a map naming a source not shipped', (f: Map<string, string>) => f.delete('src/index.ts')],
    ['a test', (f: Map<string, string>) => f.set('dist/index.test.js', '')],
    ['build state', (f: Map<string, string>) => f.set('tsconfig.tsbuildinfo', '{}')],
    [
      'a bin without its #! line',
      (f: Map<string, string>) => f.set('dist/index.js', 'export const x = 1;\n'),
    ],
    ['an empty deploy/ pattern', (f: Map<string, string>) => f.delete('deploy/crd.yaml')],
  ])('fail a package with %s', (_, change) => {
    expect(() => checkAll(packageDir(change))).toThrow();
  });
});
