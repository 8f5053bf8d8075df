/**
 * The workspace's packages as a publisher sees them: which are published and their manifests.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** The packages we publish, by folder. */
export const PUBLISHED = [
  'packages/runtime',
  'packages/envtest',
  'packages/cli',
  'packages/create-capstan',
  'packages/reboot-protocol',
  'packages/coordinator',
  'packages/agent',
  'packages/vcdsim',
  'packages/capvcd',
  'packages/version-operator',
] as const;

export interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  description?: string;
  license?: string;
  keywords?: string[];
  repository?: { type: string; url: string; directory: string };
  bin?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
}

export function readPackageJson(dir: string): PackageJson {
  return JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as PackageJson;
}

/** The workspace folders the root package.json names (globs expanded one level). */
export function workspaceFolders(): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    workspaces: string[];
  };
  return workspaces.flatMap((w) => {
    if (!w.endsWith('/*')) return [w];
    const parent = w.slice(0, -2);
    return execFileSync('ls', [join(root, parent)], { encoding: 'utf8' })
      .split('\n')
      .filter((name) => name && existsSync(join(root, parent, name, 'package.json')))
      .map((name) => `${parent}/${name}`);
  });
}
