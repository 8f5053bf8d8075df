/** kustomize and helm as `.ci/tools` builds them into the envtest cache; missing ones fail saying so. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ManifestObject } from '../../packages/envtest/src/index.js';
import { root } from '../packaging/packages.js';

const VERSIONS = { kustomize: 'v5.8.2', helm: 'v3.22.0' } as const;

export function tool(name: keyof typeof VERSIONS): string {
  const cache = process.env.CAPSTAN_ENVTEST_CACHE ?? join(homedir(), '.cache/capstan/envtest');
  const path = join(cache, 'tools', `${name}-${VERSIONS[name]}`, name);
  if (!existsSync(path))
    throw new Error(`${name} ${VERSIONS[name]} is not at ${path}: run .ci/tools (needs Go)`);
  return path;
}

/** Runs a tool in the repository and reads the YAML it prints. */
export function render(name: keyof typeof VERSIONS, args: string[]): ManifestObject[] {
  const out = execFileSync(tool(name), args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return parseAllDocuments(out)
    .map((d) => d.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => !!o);
}
