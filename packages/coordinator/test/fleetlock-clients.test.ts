/**
 * What the FleetLock server reads from the cache: the client-id index agrees with matching every
 * node (before and after the cache replaces objects), and the server's own writes send decisions
 * to the API server until the cache shows them.
 */
import type { Node } from '@capstan/runtime/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClientDirectory, clientMatchesMachine, OwnWrites, zincatiId } from '../src/index.js';

const hex32 = fc.stringMatching(/^[0-9a-f]{32}$/);
/** Machine IDs as nodes report them: raw, dashed or upper case; some garbage, some missing. */
const arbMachineId = fc.oneof(
  hex32,
  hex32.map((h) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`),
  hex32.map((h) => h.toUpperCase()),
  fc.constantFrom('', 'not-hex', undefined),
);

function cachedNode(name: string, machineID: string | undefined, frozen = true): Node {
  const node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, resourceVersion: '1' },
    status: { nodeInfo: machineID === undefined ? {} : { machineID } },
  } as unknown as Node;
  return frozen ? (structuredFreeze(node) as Node) : node;
}

function structuredFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null) {
    for (const v of Object.values(o)) structuredFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** The ids a client could send for a list of machine IDs: raw, Zincati's, dashed, or unknown. */
const arbAsk = (ids: readonly (string | undefined)[]) =>
  fc.oneof(
    fc.constantFrom(...ids.map((m) => m ?? 'nothing')),
    fc.constantFrom(...ids.map((m) => (m ? (zincatiId(m) ?? m) : 'nothing'))),
    fc.constantFrom(...ids.map((m) => ` ${(m ?? '').toUpperCase()} `)),
    hex32,
  );

describe('the client directory', () => {
  it('finds what matching every node finds, and follows objects the cache replaces', () => {
    fc.assert(
      fc.property(
        fc.array(arbMachineId, { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), arbMachineId, fc.boolean()), { maxLength: 4 }),
        fc.integer({ min: 0, max: 1000 }),
        (machineIds, replacements, seed) => {
          const directory = new ClientDirectory();
          let nodes = machineIds.map((m, i) => cachedNode(`n-${i}`, m));
          const check = (asks: string[]) => {
            for (const ask of asks) {
              const expected = nodes.find((n) =>
                clientMatchesMachine(ask, n.status?.nodeInfo?.machineID as string | undefined),
              );
              expect(directory.find(nodes, ask)).toBe(expected);
            }
          };
          const asks = fc.sample(arbAsk([...machineIds, ...replacements.map(([, m]) => m)]), {
            numRuns: 8,
            seed,
          });
          check(asks);
          for (const [at, machineID, unfrozen] of replacements) {
            // The cache replaces an object on a change; an unfrozen list is edited in place.
            const i = at % nodes.length;
            if (unfrozen) {
              nodes = nodes.map((n) =>
                cachedNode(
                  n.metadata.name as string,
                  n.status?.nodeInfo?.machineID as string | undefined,
                  false,
                ),
              );
              check(asks);
              (nodes[i] as Node).status = { nodeInfo: { machineID: machineID ?? '' } } as Node['status'];
            } else {
              nodes = nodes.map((n, j) => (j === i ? cachedNode(`n-${i}`, machineID) : n));
            }
            check(asks);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("the client directory's lookup by name", () => {
  it('finds a node that designates the client in the current list, as find does when machine IDs are unique', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(hex32, { minLength: 1, maxLength: 10 }),
        fc.array(fc.tuple(fc.nat(), fc.option(hex32, { nil: undefined }), fc.boolean()), { maxLength: 6 }),
        fc.integer({ min: 0, max: 1000 }),
        async (machineIds, changes, seed) => {
          const directory = new ClientDirectory();
          let nodes = machineIds.map((m, i) => cachedNode(`n-${i}`, m));
          let lists = 0;
          const current = async (name: string) => nodes.find((n) => n.metadata.name === name);
          const list = async () => {
            lists++;
            return nodes;
          };
          const asks = fc.sample(arbAsk([...machineIds, ...changes.map(([, m]) => m)]), { numRuns: 6, seed });
          const check = async () => {
            const unique = new Set(nodes.map((n) => n.status?.nodeInfo?.machineID)).size === nodes.length;
            for (const ask of asks) {
              const found = await directory.lookup(ask, current, list);
              const matches = (n: Node) =>
                clientMatchesMachine(ask, n.status?.nodeInfo?.machineID as string | undefined);
              if (found === undefined) expect(nodes.some(matches)).toBe(false);
              else {
                expect(nodes).toContain(found);
                expect(matches(found)).toBe(true);
              }
              if (unique) expect(found).toBe(directory.find(nodes, ask));
            }
          };
          await check();
          // Asked again with nothing changed, a known client costs no list.
          const before = lists;
          for (const ask of asks) if (directory.find(nodes, ask)) await directory.lookup(ask, current, list);
          expect(lists).toBe(before);
          for (const [at, machineID, remove] of changes) {
            // The cache replaces a changed node (a new machine ID, or none) or drops a deleted one.
            const i = at % nodes.length;
            nodes =
              remove && nodes.length > 1
                ? nodes.filter((_, j) => j !== i)
                : nodes.map((n, j) => (j === i ? cachedNode(n.metadata.name as string, machineID) : n));
            await check();
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("the server's own writes", () => {
  const node = (rv: string) => ({ metadata: { name: 'n', resourceVersion: rv } }) as Node;

  it('are unseen from the moment one is sent until the cache shows its resourceVersion', () => {
    const writes = new OwnWrites();
    expect(writes.unseen(node('5'), 0)).toBe(false);
    writes.begin('n', 0);
    expect(writes.unseen(node('5'), 1)).toBe(true); // in flight: the cache may be behind it
    writes.applied('n', '7', 2);
    expect(writes.unseen(node('5'), 3)).toBe(true);
    expect(writes.unseen(node('7'), 4)).toBe(false);
    expect(writes.unseen(node('5'), 5)).toBe(false); // seen once: forgotten
    expect(writes.unseen({ metadata: { name: 'other', resourceVersion: '5' } } as Node, 5)).toBe(false);
  });

  it('are no longer waited for after a minute unseen', () => {
    const writes = new OwnWrites();
    writes.begin('n', 0);
    expect(writes.unseen(node('5'), 60_000)).toBe(true);
    expect(writes.unseen(node('5'), 60_001)).toBe(false);
  });
});
