import { stringify } from 'yaml';
import { customResourceDefinitions } from './crds.js';

/** The CRDs as one multi-document YAML file, as `deploy/crds.yaml` holds them. */
export const crdsYaml = (): string =>
  `# Generated from src/api/schema.ts by \`npm run crds -w @capstan/capvcd\`; do not edit.\n${customResourceDefinitions()
    .map((crd) => stringify(crd, { lineWidth: 0 }))
    .join('---\n')}`;
