/**
 * The schema against Go itself, for every built-in kind: random objects (sigs.k8s.io/randfill),
 * encoded by apimachinery's protobuf serializer, decode to exactly (key order included) the JSON
 * that encoding/json gives for the same objects. And the committed schema is what the generator
 * writes from the pinned k8s.io/api, so it cannot drift from its Go types.
 *
 * Both programs live in tools/protobuf-schema (built by ./go-tools.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeObject } from '../../../src/transport/protobuf/envelope.js';
import { buildTools } from './go-tools.js';

const schemaFile = fileURLToPath(
  new URL('../../../src/transport/protobuf/generated/schema.ts', import.meta.url),
);

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
