import { afterEach, describe, expect, it, vi } from 'vitest';
import { exitOnError } from '../../src/manager/cli/exit-on-error.js';

class Exited extends Error {
  constructor(readonly code: number | string | null | undefined) {
    super(`exit ${code}`);
  }
}

describe('exitOnError', () => {
  afterEach(() => vi.restoreAllMocks());

  it('returns what the step returns', () => {
    expect(exitOnError(() => 42)).toBe(42);
  });

  it('prints one line with the message (and the hint) and exits 2 on an error', () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    vi.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Exited(code);
    });
    expect(() =>
      exitOnError(() => {
        throw new Error('cannot read kubeconfig /nope: ENOENT');
      }),
    ).toThrow(new Exited(2));
    expect(() =>
      exitOnError(() => {
        throw 'a string';
      }, '(run with --help for usage)'),
    ).toThrow(new Exited(2));
    expect(written).toEqual([
      'error: cannot read kubeconfig /nope: ENOENT\n',
      'error: a string\n(run with --help for usage)\n',
    ]);
  });
});
