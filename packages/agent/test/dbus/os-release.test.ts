import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OsReleaseError, parseOsRelease, readOsRelease } from '../../src/os-release.js';

const FLATCAR = `NAME="Flatcar Container Linux by Kinvolk"
ID=flatcar
ID_LIKE=coreos
VERSION=3975.2.0
VERSION_ID=3975.2.0
BUILD_ID=2024-08-05-2103
SYSEXT_LEVEL=1.0
PRETTY_NAME="Flatcar Container Linux by Kinvolk 3975.2.0 (Oklo)"
ANSI_COLOR="38;5;75"
HOME_URL="https://flatcar.org/"
`;

describe('parseOsRelease', () => {
  it('reads a Flatcar os-release', () => {
    const os = parseOsRelease(FLATCAR);
    expect(os.id).toBe('flatcar');
    expect(os.versionId).toBe('3975.2.0');
    expect(os.name).toBe('Flatcar Container Linux by Kinvolk');
    expect(os.prettyName).toBe('Flatcar Container Linux by Kinvolk 3975.2.0 (Oklo)');
    expect(os.idLike).toEqual(['coreos']);
    expect(os.fields.ANSI_COLOR).toBe('38;5;75');
    expect(os.fields.BUILD_ID).toBe('2024-08-05-2103');
  });

  it('applies shell quoting rules', () => {
    const os = parseOsRelease(
      [
        `A="double \\"quoted\\" \\$HOME \\\\ \\\` \\n"`,
        `B='single "quoted" \\n $HOME'`,
        'C=unquoted\\ with\\ escapes',
        `D="con"'cat'enated`,
        'E=  # only a comment',
        `F="  keep spaces  "`,
        'G=value # trailing comment',
        'H=',
        `I="a#b"`,
      ].join('\n'),
    );
    expect(os.fields).toEqual({
      A: 'double "quoted" $HOME \\ ` \\n',
      B: 'single "quoted" \\n $HOME',
      C: 'unquoted with escapes',
      D: 'concatenated',
      E: '',
      F: '  keep spaces  ',
      G: 'value',
      H: '',
      I: 'a#b',
    });
  });

  it('skips comments, blank lines, CRLF and lines that are no assignment', () => {
    const os = parseOsRelease(
      '# a comment\r\n\r\n  ID=debian  \r\nnot an assignment\r\n1BAD=x\r\nVERSION_ID="12"\r\n',
    );
    expect(os.fields).toEqual({ ID: 'debian', VERSION_ID: '12' });
    expect(os.versionId).toBe('12');
  });

  it('uses the os-release(5) defaults when ID and NAME are missing', () => {
    const os = parseOsRelease('PRETTY_NAME="Something"\n');
    expect(os.id).toBe('linux');
    expect(os.name).toBe('Linux');
    expect(os.versionId).toBeUndefined();
  });

  it('rejects an unterminated quote with the line number', () => {
    expect(() => parseOsRelease('ID=x\nNAME="broken\n')).toThrow(OsReleaseError);
    expect(() => parseOsRelease('ID=x\nNAME="broken\n')).toThrow(
      /line 2 \(NAME\).*unterminated double quote/,
    );
    expect(() => parseOsRelease("NAME='broken")).toThrow(/unterminated single quote/);
  });
});

describe('readOsRelease', () => {
  it('reads the configured path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-os-release-'));
    try {
      const path = join(dir, 'os-release');
      writeFileSync(path, FLATCAR);
      const os = await readOsRelease(path);
      expect({ id: os.id, versionId: os.versionId }).toEqual({ id: 'flatcar', versionId: '3975.2.0' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a missing file is a clear error naming the path', async () => {
    const err = await readOsRelease('/nonexistent/os-release').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OsReleaseError);
    expect((err as Error).message).toBe('cannot read os-release (/nonexistent/os-release: ENOENT)');
  });

  it('reads this machine’s os-release by default', async () => {
    const os = await readOsRelease();
    expect(os.id).toMatch(/^[a-z0-9._-]+$/);
  });
});
