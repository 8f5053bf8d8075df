import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConnectionPools } from '../../src/transport/connection-pools.js';

const server = new URL('https://127.0.0.1:6443');

describe('ConnectionPools', () => {
  it('keeps one pool while the TLS material is the same, by reference or by content', () => {
    const pools = new ConnectionPools(true);
    const ca = Buffer.from('ca-1');
    const first = pools.for({ ca, rejectUnauthorized: true }, server);
    expect(pools.for({ ca, rejectUnauthorized: true }, server)).toBe(first);
    // The same bytes in a new buffer (a token file or cert re-read unchanged): still the same pool.
    expect(pools.for({ ca: Buffer.from('ca-1'), rejectUnauthorized: true }, server)).toBe(first);
    pools.close();
  });

  it('builds a new pool when any part of the material changes (a property)', () => {
    fc.assert(
      fc.property(
        fc.record({ ca: fc.string(), cert: fc.string(), servername: fc.string(), reject: fc.boolean() }),
        fc.constantFrom('ca', 'cert', 'servername', 'reject'),
        (m, change) => {
          const pools = new ConnectionPools(true);
          const options = (x: typeof m) => ({
            ca: x.ca,
            cert: x.cert,
            servername: x.servername,
            rejectUnauthorized: x.reject,
          });
          const before = pools.for(options(m), server);
          const changed =
            change === 'reject' ? { ...m, reject: !m.reject } : { ...m, [change]: `${m[change]}!` };
          const after = pools.for(options(changed), server);
          expect(after).not.toBe(before);
          expect(pools.for(options(changed), server)).toBe(after);
          pools.close();
        },
      ),
    );
  });

  it('starts over after close', () => {
    const pools = new ConnectionPools(false);
    const first = pools.for({}, new URL('http://127.0.0.1:8080'));
    pools.close();
    expect(pools.for({}, new URL('http://127.0.0.1:8080'))).not.toBe(first);
    pools.close();
  });
});
