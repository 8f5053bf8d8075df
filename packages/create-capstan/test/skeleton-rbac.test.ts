/**
 * The skeleton's deploy/rbac.yaml is what `npm run gen:rbac` makes of its wiring: the project is
 * written into a folder of this package (so its imports resolve to the workspace's runtime) and
 * `capstan gen rbac` checks its RBAC against the template's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { genRbacFile } from '@capstan/cli';
import { describe, expect, it } from 'vitest';
import { skeletonFiles, writeSkeleton } from '../src/skeleton.js';

describe('the skeleton RBAC', () => {
  it('is generated from its wiring (templates/deploy/rbac.yaml)', async () => {
    const here = fileURLToPath(new URL('.', import.meta.url));
    const dir = mkdtempSync(join(here, '.skeleton-rbac-'));
    try {
      const name = 'rbac-check';
      writeSkeleton(join(dir, name), skeletonFiles(name, { capstan: '0.1.0' }));
      const { outcome, yaml } = await genRbacFile({
        module: join(dir, name, 'src/rbac.ts'),
        name,
        serviceAccount: { namespace: name, name },
        withServiceAccount: true,
        output: join(dir, name, 'deploy/rbac.yaml'),
        check: true,
        regenerate: 'npm run build && npm run gen:rbac',
      });
      expect(outcome, `templates/deploy/rbac.yaml should be:\n${yaml.replaceAll(name, '__NAME__')}`).toBe(
        'unchanged',
      );
      expect(yaml).toContain('resources: [widgets/finalizers]');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
