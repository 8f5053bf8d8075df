/** `capstan gen types` on files, as the command runs it: write, unchanged, stale (`--check`). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { genTypesFiles } from '../src/gen/files.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-gen-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const crdYaml = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gadgets.example.dev }
spec:
  group: example.dev
  scope: Namespaced
  names: { kind: Gadget, plural: gadgets }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { on: { type: boolean } } }
`;
const input = join(dir, 'deploy', 'crd.yaml');
const output = join(dir, 'src', 'api', 'generated', 'gadget.ts');
execFileSync('mkdir', ['-p', join(dir, 'deploy')]);
writeFileSync(input, crdYaml);

describe('genTypesFiles', () => {
  it('writes the module (making its folder), names the input relative to the base, then finds it unchanged', () => {
    expect(genTypesFiles({ inputs: [input], output, sourceBase: dir }).outcome).toBe('written');
    expect(readFileSync(output, 'utf8')).toContain('from deploy/crd.yaml.');
    expect(genTypesFiles({ inputs: [input], output, sourceBase: dir, check: true }).outcome).toBe(
      'unchanged',
    );
  });

  it('with check, reports a changed CRD as stale and leaves the file as it was', () => {
    writeFileSync(input, crdYaml.replace('on: { type: boolean }', 'on: { type: string }'));
    const before = readFileSync(output, 'utf8');
    expect(genTypesFiles({ inputs: [input], output, sourceBase: dir, check: true }).outcome).toBe('stale');
    expect(readFileSync(output, 'utf8')).toBe(before);
  });
});

describe('the capstan command', () => {
  const main = new URL('../dist/main.js', import.meta.url).pathname;
  const run = (...args: string[]) => {
    try {
      return {
        code: 0,
        out: execFileSync(process.execPath, [main, ...args], { encoding: 'utf8', stdio: 'pipe' }),
      };
    } catch (err) {
      const e = err as { status: number; stderr: string };
      return { code: e.status, out: e.stderr };
    }
  };

  it('prints the module without -o', () => {
    const { code, out } = run('gen', 'types', input);
    expect(code).toBe(0);
    expect(out).toContain('export const GadgetType = defineResource<Gadget>({');
  });

  it('exits 1 with --check on a stale file, saying what to run', () => {
    expect(run('gen', 'types', input, '-o', output, '--check')).toEqual({
      code: 1,
      out: `${output} is stale: run \`npm run gen\`\n`,
    });
  });

  it('exits 1 with the reason on a file that is not a CRD', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n');
    const { code, out } = run('gen', 'types', bad);
    expect(code).toBe(1);
    expect(out).toMatch(/^capstan: document 1 \(unnamed\): apiVersion apiextensions\.k8s\.io\/v1beta1/);
  });
});
