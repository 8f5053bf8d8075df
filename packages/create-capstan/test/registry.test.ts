/** Which registry a new project pins: only one on this machine, given to `npm create --registry`. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trialNpmrc, trialRegistry } from '../src/registry.js';

const port = fc.integer({ min: 1, max: 65535 });
const loopbackHost = fc.oneof(
  fc.constantFrom('localhost', 'LOCALHOST', '[::1]'),
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `127.${a}.${b}.${c}`),
);

describe('trialRegistry', () => {
  it('pins an http(s) registry on a loopback address, with one trailing slash', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'https'),
        loopbackHost,
        port,
        fc.boolean(),
        (scheme, host, p, slash) => {
          const pinned = trialRegistry(`${scheme}://${host}:${p}${slash ? '/' : ''}`);
          expect(pinned).toBeDefined();
          expect(pinned?.startsWith(`${scheme}://`)).toBe(true);
          expect(pinned?.endsWith('/')).toBe(true);
          expect(pinned?.endsWith('//')).toBe(false);
        },
      ),
    );
    expect(trialRegistry('http://127.0.0.1:4873')).toBe('http://127.0.0.1:4873/');
    expect(trialRegistry('http://localhost:4873/npm')).toBe('http://localhost:4873/npm/');
  });

  it('pins nothing for npm’s default, a registry elsewhere, another scheme or no URL at all', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constant(undefined),
          fc.constantFrom(
            '',
            'https://registry.npmjs.org/',
            'https://npm.example.com/repository/npm/',
            'http://128.0.0.1:4873/',
            'http://127.0.0.1.example.com/',
            'file:///tmp/registry',
            'not a url',
          ),
          fc.domain().map((d) => `https://${d}/`),
        ),
        (registry) => {
          fc.pre(!registry?.includes('localhost'));
          expect(trialRegistry(registry)).toBeUndefined();
        },
      ),
    );
  });

  it('writes an .npmrc that names the registry and says when to delete it', () => {
    const npmrc = trialNpmrc('http://127.0.0.1:4873/');
    expect(npmrc.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual([
      'registry=http://127.0.0.1:4873/',
    ]);
    expect(npmrc).toContain('Delete this file once @capstan/* is on npmjs.org');
  });
});
