import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePorts, reservePort } from '../src/ports.js';

const reservations = join(tmpdir(), `capstan-ports-${process.getuid?.() ?? 'user'}`);
const ephemeralLow = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

describe('freePort', () => {
  it('gives distinct ports below the ephemeral range, each reserved by this process and bindable', async () => {
    const ports = await freePorts(20);
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralLow);
      expect(readFileSync(join(reservations, String(port)), 'utf8')).toBe(String(process.pid));
      // Reserved ports are not handed out twice, in this process either.
      expect(reservePort(port)).toBe(false);
    }
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ports[0], resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });

  it('leaves a port reserved by a live process alone and takes over one whose process is gone', async () => {
    const [port] = await freePorts(1);
    const file = join(reservations, String(port));
    const other = spawn('sleep', ['30']);
    try {
      writeFileSync(file, String(other.pid));
      expect(reservePort(port as number)).toBe(false);
      other.kill();
      await new Promise((resolve) => other.once('exit', resolve));
      expect(reservePort(port as number)).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe(String(process.pid));
    } finally {
      other.kill();
      rmSync(file, { force: true });
    }
  });
});
