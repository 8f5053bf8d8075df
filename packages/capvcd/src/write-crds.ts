#!/usr/bin/env node
/** Writes `deploy/crds.yaml` from the schemas (run after changing `src/api/schema.ts`). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { crdsYaml } from './api/crds-yaml.js';

const target = fileURLToPath(new URL('../deploy/crds.yaml', import.meta.url));
writeFileSync(target, crdsYaml());
process.stdout.write(`wrote ${target}\n`);
