/** The `Warning` header's texts, and telling each once. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWarningHeader, WarningOnce } from '../../src/transport/api-warnings.js';
import { retryDelayMs } from '../../src/transport/retry-after.js';

/** A header value as Go's net/http joins several: quoted, `"` and `\` escaped. */
const header = (texts: string[], code = 299) =>
  texts.map((t) => `${code} - "${t.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(', ');

describe('parseWarningHeader', () => {
  it('reads back every 299 text of a joined header, whatever it holds', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme-ascii' }), { maxLength: 5 }), (texts) => {
        expect(parseWarningHeader(header(texts))).toEqual(texts);
      }),
    );
  });

  it("leaves out other codes (not the API server's) and reads a dated warning", () => {
    expect(parseWarningHeader(`${header(['cache'], 110)}, ${header(['kept'])}`)).toEqual(['kept']);
    expect(parseWarningHeader('299 apiserver "dated" "Sat, 06 Dec 2026 14:00:00 GMT"')).toEqual(['dated']);
  });
});

describe('WarningOnce', () => {
  it('tells each distinct text exactly once, in the order first seen', () => {
    const text = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(fc.array(fc.array(text, { maxLength: 3 }), { maxLength: 20 }), (headers) => {
        const told: string[] = [];
        const once = new WarningOnce((t) => told.push(t));
        for (const texts of headers) once.header(header(texts));
        once.header(undefined);
        expect(told).toEqual([...new Set(headers.flat())]);
      }),
    );
  });

  it('a throwing hook does not throw out of the request', () => {
    const once = new WarningOnce(() => {
      throw new Error('hook');
    });
    expect(() => once.header(header(['x']))).not.toThrow();
  });
});

describe('retryDelayMs', () => {
  const policy = { maxRetries: 3, maxDelayMs: 5_000 };
  it('retries a 429 or 5xx with Retry-After, bounded in count and delay, and nothing else', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 599 }),
        fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
        fc.nat(6),
        (status, seconds, attempt) => {
          const delay = retryDelayMs(status, seconds, attempt, policy);
          const retried = (status === 429 || status >= 500) && seconds !== undefined && attempt < 3;
          expect(delay !== undefined).toBe(retried);
          if (delay !== undefined) expect(delay).toBe(Math.min((seconds as number) * 1000, 5_000));
        },
      ),
    );
  });
});
