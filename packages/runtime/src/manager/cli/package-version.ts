import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The `version` of the nearest `package.json` in the folder of the module at `moduleUrl` or above
 * it: what an operator's `--version` prints (pass `import.meta.url` of its `main`). Works from
 * `dist/` and from a bundle whose image keeps the `package.json` beside or above it.
 *
 * @returns `"unknown"` when no package.json with a version is found (`--version` must not crash).
 */
export function packageVersion(moduleUrl: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
      if (typeof version === 'string') return version;
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}
