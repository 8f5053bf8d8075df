import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { packageVersion } from '../../../src/manager/cli/package-version.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-version-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('packageVersion', () => {
  it('reads the nearest package.json with a version at or above the module', () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'op', version: '1.4.2' }));
    // A nested package.json without a version (as some tools write) is passed over.
    mkdirSync(join(dir, 'dist', 'bundle'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'package.json'), JSON.stringify({ type: 'module' }));
    const main = pathToFileURL(join(dir, 'dist', 'bundle', 'op.js')).href;
    expect(packageVersion(main)).toBe('1.4.2');
  });

  it('answers the runtime its own version', () => {
    expect(packageVersion(import.meta.url)).toBe('0.1.0');
  });

  it('says unknown when no package.json says a version', () => {
    expect(packageVersion(pathToFileURL('/no-such-dir/x/main.js').href)).toBe('unknown');
  });
});
