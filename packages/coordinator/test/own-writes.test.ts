/**
 * Read-your-writes: a cached list is behind exactly when it still shows a node at the version one
 * of our landed writes was planned from, within the wait; otherwise the write is forgotten.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OWN_WRITE_WAIT_MS, OwnWrites } from '../src/own-writes.js';

const node = (name: string, resourceVersion: string) => ({ metadata: { name, resourceVersion } });

describe('OwnWrites', () => {
  it('is behind until the list shows the node moved on, then forgets the write', () => {
    const own = new OwnWrites();
    expect(own.unseen([node('a', '1')], 0)).toBe(false);
    own.landed('a', '1', 0);
    expect(own.unseen([node('a', '1'), node('b', '7')], 10)).toBe(true);
    expect(own.unseen([node('a', '2')], 20)).toBe(false);
    // Forgotten: the old version showing again (another list) does not hold rounds back.
    expect(own.unseen([node('a', '1')], 30)).toBe(false);
  });

  it('forgets a write the cache has not shown within the wait (a lost event never stalls)', () => {
    const own = new OwnWrites();
    own.landed('a', '1', 0);
    expect(own.unseen([node('a', '1')], OWN_WRITE_WAIT_MS - 1)).toBe(true);
    expect(own.unseen([node('a', '1')], OWN_WRITE_WAIT_MS)).toBe(false);
  });

  it('forgets a write to a node the list no longer holds', () => {
    const own = new OwnWrites();
    own.landed('a', '1', 0);
    expect(own.unseen([node('b', '1')], 1)).toBe(false);
  });

  it('is behind iff some written node is listed at its planned-from version within the wait', () => {
    const names = fc.constantFrom('a', 'b', 'c', 'd');
    const versions = fc.constantFrom('1', '2', '3');
    fc.assert(
      fc.property(
        fc.array(fc.record({ node: names, from: versions, at: fc.integer({ min: 0, max: 10_000 }) })),
        fc.uniqueArray(fc.record({ name: names, rv: versions }), { selector: (n) => n.name }),
        fc.integer({ min: 0, max: 20_000 }),
        (writes, listed, later) => {
          const own = new OwnWrites();
          const last = new Map<string, { from: string; at: number }>();
          let now = 0;
          for (const w of writes) {
            now = Math.max(now, w.at);
            own.landed(w.node, w.from, now);
            last.set(w.node, { from: w.from, at: now });
          }
          const at = now + later;
          const expected = [...last].some(
            ([n, w]) => at - w.at < OWN_WRITE_WAIT_MS && listed.some((l) => l.name === n && l.rv === w.from),
          );
          expect(
            own.unseen(
              listed.map((l) => node(l.name, l.rv)),
              at,
            ),
          ).toBe(expected);
          // Once answered, what was forgotten stays forgotten; what is behind stays so at the same time.
          expect(
            own.unseen(
              listed.map((l) => node(l.name, l.rv)),
              at,
            ),
          ).toBe(expected);
        },
      ),
    );
  });
});
