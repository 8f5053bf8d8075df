#!/usr/bin/env node
/**
 * Writes this provider's clusterctl file repository: `node dist/write-clusterctl-repository.js
 * <root> [version]` → `<root>/infrastructure-capvcd/<version>/...` and a clusterctl config at
 * `<root>/clusterctl.yaml` for `clusterctl init|generate --config`.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { clusterctlConfig, writeClusterctlRepository } from './clusterctl/repository.js';

const [root, version = 'v0.1.0'] = process.argv.slice(2);
if (!root) {
  process.stderr.write('usage: write-clusterctl-repository <root> [version]\n');
  process.exit(2);
}
const dir = writeClusterctlRepository(resolve(root), version);
writeFileSync(join(resolve(root), 'clusterctl.yaml'), clusterctlConfig(resolve(root), version));
process.stdout.write(`wrote ${dir} and ${join(resolve(root), 'clusterctl.yaml')}\n`);
