import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WebhookServingCert } from '@capstan/envtest';
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

describe('the pooled https agent', () => {
  it('names connections by host and port alone, and keeps one TLS connection for a run of requests', async () => {
    const cert = await WebhookServingCert.create();
    const server = https.createServer(
      {
        cert: readFileSync(join(cert.certDir, 'tls.crt')),
        key: readFileSync(join(cert.certDir, 'tls.key')),
      },
      (_req, res) => res.end('ok'),
    );
    let handshakes = 0;
    server.on('secureConnection', () => handshakes++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const pool = new AgentPool(true);
    try {
      const ca = Buffer.from(cert.caPem);
      // As the transport does: the material on every request's options, the agent from the pool.
      const options = () => ({ host: '127.0.0.1', port, path: '/', ca, rejectUnauthorized: true });
      const agent = pool.agentFor(options());
      expect(agent.getName(options())).toBe(`127.0.0.1:${port}:`);
      for (let i = 0; i < 5; i++) {
        const body = await new Promise<string>((resolve, reject) => {
          const request = https.request({ ...options(), agent: pool.agentFor(options()) }, (res) => {
            let text = '';
            res.on('data', (chunk) => {
              text += chunk;
            });
            res.on('end', () => resolve(text));
          });
          request.on('error', reject);
          request.end();
        });
        expect(body).toBe('ok');
      }
      expect(handshakes).toBe(1);
    } finally {
      pool.close();
      server.close();
      cert.remove();
    }
  });
});
