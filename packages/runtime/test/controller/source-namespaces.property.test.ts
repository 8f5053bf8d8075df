/** Which namespaces a source watches: the most specific setting wins, and only for namespaced kinds. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sourceNamespaces } from '../../src/controller/builder.js';

const list = fc.option(fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 4 }), { nil: undefined });

describe('sourceNamespaces', () => {
  it('takes the first list given, without repeats; none for a cluster-scoped kind or a set namespace', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.option(fc.constant('own'), { nil: undefined }),
        list,
        list,
        list,
        (namespaced, own, a, b, c) => {
          const got = sourceNamespaces(namespaced, own, a, b, c);
          const first = [a, b, c].find((l) => l !== undefined);
          if (!namespaced || own || !first?.length) expect(got).toBeUndefined();
          else expect(got).toEqual([...new Set(first)]);
        },
      ),
    );
  });
});
