/**
 * The bench's floor probe does the controller workloads' requests for real: every ConfigMap gets
 * its patch, and the read stream ends only at the server's initial-events-end bookmark.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useControlPlane } from '@capstan/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FloorCredentials, writeFloorCredentials } from '../../bench/floor-credentials.js';
import { Client, ConfigMap, HttpTransport } from '../../src/client/index.js';

const probe = fileURLToPath(new URL('../../bench/dist/floor-probe.js', import.meta.url));
const env = useControlPlane('floor-probe');
const COUNT = 12;
let client: Client;
let written: FloorCredentials;
let credentials: string;

beforeAll(async () => {
  client = new Client(new HttpTransport(env.kubeConfig));
  for (let i = 0; i < COUNT; i++)
    await client.create(ConfigMap, {
      metadata: { namespace: env.namespace, name: `cm-${i}` },
      data: { i: `${i}` },
    });
  written = await writeFloorCredentials(env.kubeConfig);
  credentials = written.file;
});

afterAll(() => written?.remove());

function run(mode: string): { ms: number; afterStartupMs: number } {
  const done = spawnSync(process.execPath, [probe, mode, credentials, env.namespace, String(COUNT)], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(done.stderr).toBe('');
  expect(done.status).toBe(0);
  return JSON.parse(done.stdout.trim());
}

describe('the floor probe', () => {
  it('has its credentials in a private file that remove() takes away, folder and all', async () => {
    const extra = await writeFloorCredentials(env.kubeConfig);
    expect(existsSync(extra.file)).toBe(true);
    extra.remove();
    expect(existsSync(dirname(extra.file))).toBe(false);
    extra.remove(); // twice is harmless
  });

  it('patches every ConfigMap with one run annotation', async () => {
    const result = run('write');
    expect(result.afterStartupMs).toBeGreaterThan(0);
    const { items } = await client.list(ConfigMap, { namespace: env.namespace });
    const runs = new Set(items.map((cm) => cm.metadata.annotations?.['bench.capstan.dev/run']));
    expect(items).toHaveLength(COUNT);
    expect([...runs]).toHaveLength(1);
    expect([...runs][0]).toMatch(/^floor-\d+$/);
  });

  it('streams the list to its bookmark (an empty one too), and refuses an unknown mode', () => {
    expect(run('read').ms).toBeGreaterThan(0);
    const wrong = spawnSync(process.execPath, [probe, 'read', credentials, 'no-such-namespace-x', '1'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    // Without the bookmark the watch would never end (no timeout is asked): the spawn would time out.
    expect(wrong.status).toBe(0);
    expect(spawnSync(process.execPath, [probe, 'list', credentials, env.namespace, '1']).status).not.toBe(0);
  });
});
