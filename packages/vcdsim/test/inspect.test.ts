/** The inspection API over HTTP, seed checking, plain-HTTP mode and the CLI. */

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSeed, SeedError, startVcdSim, type VcdSim } from '../src/index.js';
import { parseXml, request, startVirtual, Tenant } from './client.js';
import { addVms, boot, composeVApp, lookups } from './flows.js';

describe('inspection API over HTTP', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
  });
  afterAll(() => sim.stop());

  const get = async (p: string) => JSON.parse((await request(sim, 'GET', p)).text);
  const post = (p: string, body: unknown) =>
    request(sim, 'POST', p, { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  it('reports objects, tasks, pools and per-route request counts', async () => {
    const l = await lookups(alice);
    const vapp = await composeVApp(sim, alice, l, 'seen');
    await addVms(sim, alice, l, vapp, [{ name: 'seen-0' }]);
    const objects = await get('/inspect/objects');
    expect(objects.vms.map((v: { name: string }) => v.name)).toEqual(['seen-0']);
    expect(objects.orgs.map((o: { name: string }) => o.name)).toEqual(['tenant-a', 'tenant-b']);
    const tasks = await get('/inspect/tasks');
    expect(
      tasks.map((t: { operationName: string; status: string }) => `${t.operationName}:${t.status}`),
    ).toEqual(['vdcComposeVapp:success', 'vdcRecomposeVapp:success']);
    const log = await get('/inspect/requests');
    expect(log.byRoute['POST /api/vApp/vapp-{id}/action/recomposeVApp']).toBe(1);
    expect(log.byRoute['GET /api/query']).toBe(3);
    // The log holds what was answered before this request.
    expect(log.entries.at(-1)).toMatchObject({ method: 'GET', path: '/inspect/tasks', status: 200 });
    expect(log.total).toBe(log.entries.length);
    expect((await get('/inspect/pools/net-a')).size).toBe(151);
    expect((await request(sim, 'DELETE', '/inspect/requests')).status).toBe(204);
    // Only the DELETE itself is left (it is logged once answered).
    const after = await get('/inspect/requests');
    expect(after.entries.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual([
      'DELETE /inspect/requests',
    ]);
  });

  it('injects faults, moves the virtual clock and sets guest serving over HTTP', async () => {
    expect(
      (await post('/inspect/faults', { type: 'http', status: 500, count: 1, path: '/api/org' })).status,
    ).toBe(204);
    expect((await alice.xml('GET', '/api/org')).status).toBe(500);
    expect((await alice.xml('GET', '/api/org')).status).toBe(200);
    const before = sim.clock.now();
    expect(JSON.parse((await request(sim, 'POST', '/inspect/clock/advance?ms=1500')).text).now).toBe(
      before + 1500,
    );
    expect((await post('/inspect/faults', { type: 'nonsense' })).status).toBe(400);
    expect((await post('/inspect/vms/nobody/serving', { serving: true })).status).toBe(404);
    expect((await post('/inspect/faults', { type: 'expireTokens' })).status).toBe(204);
    expect((await alice.xml('GET', '/api/org')).status).toBe(401);
  });
});

describe('a failing boot hook', () => {
  it('is recorded where it happened and breaks nothing', async () => {
    const sim = await startVirtual({
      onBoot: () => {
        throw new Error('guest broke');
      },
    });
    try {
      const alice = await Tenant.login(sim);
      const l = await lookups(alice);
      const vapp = await composeVApp(sim, alice, l, 'hooked');
      const vm = (await addVms(sim, alice, l, vapp, [{ name: 'h-0' }]))['h-0']!;
      expect(await boot(sim, alice, vm)).toMatch(/^10\.10\.0\./);
      expect(sim.inspect.errors().map((e) => [e.where, String(e.error)])).toEqual([
        ['onBoot(h-0)', 'Error: guest broke'],
      ]);
      expect((await alice.xml('GET', vm)).status).toBe(200);
    } finally {
      await sim.stop();
    }
  });
});

describe('seeds', () => {
  it('lists every problem of a bad seed', () => {
    let err: unknown;
    try {
      parseSeed(
        'orgs:\n  - name: a\n    users: []\n    vdcs: [{ name: v, networks: [{ name: n, gateway: 1.2.3.4, prefixLength: -1, staticIpPool: [{ start: x, end: 1.2.3.9 }], colour: red }] }]\n',
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SeedError);
    expect((err as SeedError).problems).toEqual([
      'seed.orgs[0].vdcs[0].networks[0].prefixLength: expected a non-negative number',
      'seed.orgs[0].vdcs[0].networks[0].colour: unknown field',
    ]);
    expect(() => parseSeed('orgs: [')).toThrow(SeedError);
  });

  it('refuses references that do not resolve and pools that do not parse', async () => {
    const seed = parseSeed(
      'orgs:\n  - name: a\n    users: []\n    vdcs: [{ name: v, computePolicies: [ghost], networks: [{ name: n, gateway: 1.2.3.4, prefixLength: 24, edgeGateway: nope, staticIpPool: [{ start: x, end: 1.2.3.9 }] }] }]\n',
    );
    await expect(startVcdSim({ seed })).rejects.toThrow(
      /no compute policy named ghost[\s\S]*"x" is not an IPv4 address[\s\S]*no edge gateway nope/,
    );
  });

  it('serves plain HTTP when asked', async () => {
    const sim = await startVcdSim({
      seed: 'orgs:\n  - name: a\n    users: [{ name: u, password: p }]\n    vdcs: [{ name: v }]\n',
      tls: false,
    });
    try {
      expect(sim.url).toMatch(/^http:\/\//);
      expect(sim.caPem).toBe('');
      expect((await request(sim, 'GET', '/api/versions')).status).toBe(200);
    } finally {
      await sim.stop();
    }
  });
});

describe('capstan-vcdsim CLI', () => {
  const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;

  it('serves the sample seed, writes its CA and logs one line per request', async () => {
    expect(existsSync(cli), `${cli} is missing: run "npm run build" first`).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'vcdsim-cli-'));
    const child = spawn(process.execPath, [cli, '--port', '0', '--ca-out', join(dir, 'ca.pem')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    try {
      while (!/serving (https:\S+)/.test(out)) {
        if (child.exitCode !== null) throw new Error(`CLI exited: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const url = /serving (https:\S+)/.exec(out)![1]!;
      const target = { url, caPem: readFileSync(join(dir, 'ca.pem'), 'utf8') };
      expect(parseXml((await request(target, 'GET', '/api/versions')).text).SupportedVersions).toBeDefined();
      expect(
        (await request(target, 'GET', '/api/org', { headers: { Accept: 'application/*+xml;version=37.2' } }))
          .status,
      ).toBe(401);
      while ((out.match(/\n/g) ?? []).length < 3) await new Promise((r) => setTimeout(r, 20));
      const lines = out.trim().split('\n').slice(1);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/ GET \/api\/versions 200 /);
      expect(lines[1]).toMatch(/ GET \/api\/org 401 /);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
