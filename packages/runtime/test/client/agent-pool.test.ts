import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentPool } from '../../src/client/agent-pool.js';

describe('AgentPool', () => {
  it('keeps one agent while the TLS material is the same, by reference or by content', () => {
    const pool = new AgentPool(true);
    const ca = Buffer.from('ca-1');
    const first = pool.agentFor({ ca, rejectUnauthorized: true });
    expect(pool.agentFor({ ca, rejectUnauthorized: true })).toBe(first);
    // The same bytes in a new buffer (a token file or cert re-read unchanged): still the same agent.
    expect(pool.agentFor({ ca: Buffer.from('ca-1'), rejectUnauthorized: true })).toBe(first);
    pool.close();
  });

  it('builds a new agent when any part of the material changes', () => {
    fc.assert(
      fc.property(
        fc.record({ ca: fc.string(), cert: fc.string(), servername: fc.string(), reject: fc.boolean() }),
        fc.constantFrom('ca', 'cert', 'servername', 'reject'),
        (m, change) => {
          const pool = new AgentPool(true);
          const options = (x: typeof m) => ({
            ca: x.ca,
            cert: x.cert,
            servername: x.servername,
            rejectUnauthorized: x.reject,
          });
          const before = pool.agentFor(options(m));
          const changed =
            change === 'reject' ? { ...m, reject: !m.reject } : { ...m, [change]: `${m[change]}!` };
          const after = pool.agentFor(options(changed));
          expect(after).not.toBe(before);
          expect(pool.agentFor(options(changed))).toBe(after);
          pool.close();
        },
      ),
    );
  });
});
