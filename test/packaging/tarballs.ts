/** The workspace's packages packed as a registry would serve them, for tests outside the workspace. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readPackageJson, root } from './packages.js';

/** `npm pack`s the folders into `dest`; returns each package's tarball by package name. */
export function packTarballs(dirs: readonly string[], dest: string): Map<string, string> {
  mkdirSync(dest, { recursive: true });
  execFileSync(
    'npm',
    ['pack', '--ignore-scripts', '--pack-destination', dest, ...dirs.flatMap((d) => ['-w', d])],
    {
      cwd: root,
      stdio: 'pipe',
    },
  );
  const files = readdirSync(dest);
  return new Map(
    dirs.map((dir) => {
      const { name, version } = readPackageJson(dir);
      const file = `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
      if (!files.includes(file)) throw new Error(`npm pack wrote no ${file} into ${dest}`);
      return [name, join(dest, file)];
    }),
  );
}
