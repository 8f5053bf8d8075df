/**
 * The schema against Go itself, for every built-in kind: random objects (sigs.k8s.io/randfill),
 * encoded by apimachinery's protobuf serializer, decode to exactly (key order included) the JSON
 * that encoding/json gives for the same objects. And the committed schema is what the generator
 * writes from the pinned k8s.io/api, so it cannot drift from its Go types.
 *
 * Both programs live in tools/protobuf-schema; they are built with the machine's Go from the Go
 * module proxy into ~/.cache/capstan/protobuf/<hash of their sources>/ (first run: a minute or two).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeObject } from '../../../src/transport/protobuf/envelope.js';

const toolDir = fileURLToPath(new URL('../../../tools/protobuf-schema', import.meta.url));
const schemaFile = fileURLToPath(
  new URL('../../../src/transport/protobuf/generated/schema.ts', import.meta.url),
);

function sources(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => (statSync(join(dir, f)).isDirectory() ? sources(join(dir, f)) : [join(dir, f)]));
}

/** Builds both programs once per source hash; fails, saying what to install, without Go. */
function buildTools(): string {
  const hash = createHash('sha256');
  for (const file of sources(toolDir)) hash.update(file.slice(toolDir.length)).update(readFileSync(file));
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const dir = join(base, 'capstan', 'protobuf', hash.digest('hex').slice(0, 12));
  if (existsSync(join(dir, 'fixtures'))) return dir;
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const go = spawnSync('go', ['build', '-o', `${scratch}/`, '.', './fixtures'], {
    cwd: toolDir,
    encoding: 'utf8',
  });
  if (go.error || go.status !== 0) {
    throw new Error(
      `building tools/protobuf-schema failed (${go.error?.message ?? go.stderr}): these tests need Go 1.25 or ` +
        'newer on PATH (Debian: golang, or go.dev/dl) and the Go module proxy reachable',
    );
  }
  renameSync(scratch, dir);
  return dir;
}

describe('protobuf schema against the Go types', () => {
  let tools: string;
  beforeAll(() => {
    tools = buildTools();
  }, 600_000);

  it('the committed schema is what the generator writes', () => {
    const written = execFileSync(join(tools, 'protobuf-schema'), { encoding: 'utf8', maxBuffer: 64 << 20 });
    // Not toBe: a mismatch would print 120 KB. `npm run gen:protobuf -w @capstan/runtime` rewrites it.
    expect(written === readFileSync(schemaFile, 'utf8')).toBe(true);
  });

  for (const seed of [1, 2, 3]) {
    it(`random objects of every kind decode to their JSON (seed ${seed})`, () => {
      const out = execFileSync(join(tools, 'fixtures'), [String(seed), '2'], {
        encoding: 'utf8',
        maxBuffer: 512 << 20,
      });
      const lines = out.trim().split('\n');
      const kinds = new Set<string>();
      for (const line of lines) {
        const { key, pb, json } = JSON.parse(line) as { key: string; pb: string; json: unknown };
        kinds.add(key);
        const decoded = decodeObject(Buffer.from(pb, 'base64'));
        if (JSON.stringify(decoded) !== JSON.stringify(json))
          expect({ key, decoded }).toStrictEqual({ key, decoded: json });
        expect(decoded).toStrictEqual(json);
      }
      // Every kind of the schema came: the core ones, lists and Status among them.
      expect(kinds.size).toBeGreaterThan(250);
      for (const key of [
        'v1/Pod',
        'v1/PodList',
        'apps/v1/StatefulSet',
        'v1/Status',
        'coordination.k8s.io/v1/Lease',
      ])
        expect(kinds).toContain(key);
    });
  }
});
