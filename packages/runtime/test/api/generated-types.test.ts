/**
 * The committed types of the built-in kinds (src/api/generated) are what tools/protobuf-schema's
 * TypeScript generator writes from the pinned k8s.io/api, file for file: they cannot drift from
 * the Go types. `npm run gen:types -w @capstan/runtime` rewrites them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTools, toolDir } from '../client/protobuf/go-tools.js';
import { typeErrors } from './type-check.js';

const committed = fileURLToPath(new URL('../../src/api/generated', import.meta.url));

function files(dir: string, root = dir): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const path = join(dir, f);
      return statSync(path).isDirectory() ? files(path, root) : [relative(root, path)];
    });
}

describe('generated types of the built-in kinds', () => {
  let written: string;
  let tools: string;
  beforeAll(() => {
    tools = buildTools();
    written = mkdtempSync(join(tmpdir(), 'capstan-types-'));
    execFileSync(join(tools, 'typescript'), [written], { cwd: toolDir, stdio: 'pipe' });
  }, 600_000);
  afterAll(() => rmSync(written, { recursive: true, force: true }));

  it('are what the generator writes from k8s.io/api', () => {
    const names = files(written);
    expect(files(committed)).toEqual(names);
    // core/v1 and meta/v1 among the group/versions, the kinds' files among them.
    expect(names).toContain('core/v1.ts');
    expect(names).toContain('apps/v1.ts');
    expect(names.length).toBeGreaterThan(50);
    const stale = names.filter(
      (n) => readFileSync(join(written, n), 'utf8') !== readFileSync(join(committed, n), 'utf8'),
    );
    expect(stale).toEqual([]);
  });

  it('type every kind: a random object of each, as encoding/json writes it, compiles against them', () => {
    // Every field set, each +enum field one of its values (tools/protobuf-schema/typed-fixtures).
    const out = execFileSync(join(tools, 'typed-fixtures'), ['1', '1'], {
      cwd: toolDir,
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    });
    const objects = out
      .trim()
      .split('\n')
      .map((line) => {
        const { module, kind, json } = JSON.parse(line) as { module: string; kind: string; json: unknown };
        return { module, kind, object: json };
      });
    expect(objects.length).toBeGreaterThan(140);
    expect(objects.map((o) => `${o.module}/${o.kind}`)).toContain('core/v1/Pod');
    expect(typeErrors(objects)).toEqual([]);
  }, 300_000);
});
