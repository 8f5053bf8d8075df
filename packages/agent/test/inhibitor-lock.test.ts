/**
 * Without unix fd passing (dbus-next lacks its native module) the agent cannot hold logind's delay
 * inhibitor lock: it says so once at start at warn level, so an operator knows shutdown is not
 * delayed for it (issue 14, item 11). A real dbus-daemon carries the fake logind.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useControlPlane } from '@capstan/envtest/vitest';
import { createLogger } from '@capstan/runtime/manager';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unixFdPassingAvailable } from '../src/dbus/fd-passing.js';
import { startAgent } from '../src/operator.js';
import { type FakeHost, startFakeHost, stopFakeHost } from './dbus/helpers.js';

const env = useControlPlane('agent-inhibitor-lock');
let dir: string;
let host: FakeHost;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-agent-inhibit-'));
  writeFileSync(join(dir, 'os-release'), 'ID=flatcar\nVERSION=1.0.0\n');
  host = await startFakeHost();
});
afterAll(async () => {
  await stopFakeHost(host);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the logind delay inhibitor lock', () => {
  it('is reported once at warn level when it cannot be taken', async () => {
    // If this machine ever gains fd passing, the lock is taken and this test must check that instead.
    expect(unixFdPassingAvailable()).toBe(false);
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const running = startAgent({
      kubeConfig: env.kubeConfig,
      nodeName: 'inhibit-node',
      busAddress: host.bus.address,
      osReleasePath: join(dir, 'os-release'),
      logger,
    });
    const warned = () =>
      lines
        .map((l) => JSON.parse(l) as { level: string; msg: string; unsupported?: boolean })
        .filter((l) => l.msg.includes('no logind delay inhibitor lock'));
    try {
      const found = await eventually(() => (warned().length > 0 ? warned() : undefined), {
        what: 'the inhibitor-lock warning',
        timeoutMs: 20_000,
      });
      expect(found[0]).toMatchObject({ level: 'warn', unsupported: true });
      expect(found[0]?.msg).toContain('shutdown is not delayed for the agent');
    } finally {
      await running.stop();
    }
    // Said once for the agent's life, not once per reconcile.
    expect(warned()).toHaveLength(1);
  }, 30_000);
});
