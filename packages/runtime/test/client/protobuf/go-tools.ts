/**
 * The Go programs of tools/protobuf-schema (the protobuf schema and TypeScript generators, the
 * fixtures printers), built with the machine's Go from the Go module proxy into
 * ~/.cache/capstan/protobuf/<hash of their sources>/ (first run: a minute or two).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const toolDir = fileURLToPath(new URL('../../../tools/protobuf-schema', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => (statSync(join(dir, f)).isDirectory() ? sources(join(dir, f)) : [join(dir, f)]));
}

/** Builds the programs once per source hash; fails, saying what to install, without Go. */
export function buildTools(): string {
  const hash = createHash('sha256');
  for (const file of sources(toolDir)) hash.update(file.slice(toolDir.length)).update(readFileSync(file));
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const dir = join(base, 'capstan', 'protobuf', hash.digest('hex').slice(0, 12));
  if (existsSync(join(dir, 'typed-fixtures'))) return dir;
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const go = spawnSync(
    'go',
    ['build', '-o', `${scratch}/`, '.', './fixtures', './typescript', './typed-fixtures'],
    {
      cwd: toolDir,
      encoding: 'utf8',
    },
  );
  if (go.error || go.status !== 0) {
    throw new Error(
      `building tools/protobuf-schema failed (${go.error?.message ?? go.stderr}): these tests need Go 1.25 or ` +
        'newer on PATH (Debian: golang, or go.dev/dl) and the Go module proxy reachable',
    );
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  return dir;
}
