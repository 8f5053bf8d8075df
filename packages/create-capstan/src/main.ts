#!/usr/bin/env node
/** `npm create capstan@latest <directory>` / `npx create-capstan <directory>`: a new project. */
import { readFileSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';
import { Command } from 'commander';
import { trialNpmrc, trialRegistry } from './registry.js';
import { skeletonFiles, tarballSpecs, writeSkeleton } from './skeleton.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const program = new Command('create-capstan')
  .description(
    'Writes a new Capstan controller project: a sample CRD and its generated types, a reconciler, ' +
      'main with the standard flags, deploy/ manifests, a Dockerfile and an envtest test',
  )
  .version(version)
  .argument('<directory>', 'where to write it (absent or empty); its name is the project name')
  .option('--name <name>', 'the project name (default: the directory name)')
  .option(
    '--tarballs <dir>',
    'depend on the @capstan tarballs `npm pack` wrote there (file: paths): try it before publication, offline',
  )
  .action((directory: string, flags: { name?: string; tarballs?: string }) => {
    const dir = resolve(directory);
    const name = flags.name ?? basename(dir);
    const tarballs = flags.tarballs === undefined ? undefined : tarballSpecs(flags.tarballs, version);
    const files = skeletonFiles(name, { capstan: version, ...(tarballs ? { tarballs } : {}) });
    const registry = trialRegistry(process.env.npm_config_registry);
    if (registry) files.set('.npmrc', trialNpmrc(registry));
    writeSkeleton(dir, files);
    const shown = relative(process.cwd(), dir) || '.';
    const pinned = registry ? ` (.npmrc: it installs from ${registry}, the registry it came from)` : '';
    process.stdout.write(
      `Wrote ${files.size} files into ${shown}${pinned}. Next:\n\n  cd ${shown}\n  npm install\n  npm run build\n  npm test\n`,
    );
  });

try {
  await program.parseAsync();
} catch (err) {
  process.stderr.write(`create-capstan: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
