/**
 * Which workspace packages are published and what their manifests tell a registry's reader. What
 * their tarballs hold (license, engines, exports, types, source maps) is checked on the tarballs a
 * real registry serves: test/registry/registry.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PUBLISHED, readPackageJson, workspaceFolders } from './packages.js';

describe('the published packages', () => {
  it('are every workspace package not marked private', () => {
    const published = workspaceFolders().filter((dir) => !readPackageJson(dir).private);
    expect(published.sort()).toEqual([...PUBLISHED].sort());
  });

  describe.each(PUBLISHED)('%s', (dir) => {
    const pkg = readPackageJson(dir);

    it('has a description, keywords and the repository folder', () => {
      expect(pkg.description?.length).toBeGreaterThan(20);
      expect(pkg.keywords?.length).toBeGreaterThan(0);
      expect(pkg.repository).toMatchObject({ type: 'git', directory: dir });
    });
  });

  it('the operators install their programs as commands', () => {
    expect(readPackageJson('packages/coordinator').bin).toEqual({ 'capstan-coordinator': './dist/main.js' });
    expect(readPackageJson('packages/agent').bin).toEqual({ 'capstan-agent': './dist/main.js' });
    expect(readPackageJson('packages/envtest').bin).toEqual({
      'capstan-envtest': './bin/capstan-envtest.js',
    });
  });
});
