/**
 * The VCD client against vcdsim over real HTTPS: TLS verified by default (refused without the
 * CA, accepted with it, skipped only when asked), the version negotiated once, one login per
 * credentials (refreshed once on 401 after the tokens expire), writes returning their task
 * without waiting, per-site rate limiting, and secrets kept out of errors.
 */
import { fileURLToPath } from 'node:url';
import { startVcdSim, type VcdSim } from '@capstan/vcdsim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallInfo, Connections, VcdError } from '../src/index.js';
import { taskRunning } from '../src/vcd/client.js';
import { composeVApp, getVApp } from '../src/vcd/vapp.js';

const seed = fileURLToPath(new URL('./fixtures/seed.yaml', import.meta.url));
const alice = { org: 'tenant-a', username: 'alice', password: 'alice-password' };
let sim: VcdSim;

beforeAll(async () => {
  sim = await startVcdSim({ seed, taskLatencyMs: 300 });
});
afterAll(async () => {
  await sim?.stop();
});

const count = (key: string) => sim.inspect.counts()[key] ?? 0;

describe('the VCD client over HTTPS', () => {
  it('refuses the site without its CA, and says why without the password', async () => {
    const connections = new Connections();
    const { directory } = connections.connect({ url: sim.url }, alice);
    const err = await directory.vdc('vdc-a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VcdError);
    expect((err as VcdError).minorErrorCode).toBe('CONNECTION_FAILED');
    expect(String((err as Error).message)).toMatch(/certificate/i);
    expect(String((err as Error).message)).not.toContain('alice-password');
    connections.close();
  });

  it('verifies with the CA bundle; skips verification only when insecure is set', async () => {
    for (const site of [
      { url: sim.url, caPem: sim.caPem },
      { url: sim.url, insecure: true },
    ]) {
      const connections = new Connections();
      const vdc = await connections.connect(site, alice).directory.vdc('vdc-a');
      expect(vdc.networks.has('net-a')).toBe(true);
      connections.close();
    }
  });

  it('negotiates the version once and logs in once per credentials, however many calls', async () => {
    sim.inspect.resetRequests();
    const calls: CallInfo[] = [];
    const connections = new Connections({}, (c) => calls.push(c));
    const site = { url: sim.url, caPem: sim.caPem };
    const a = connections.connect(site, alice);
    await Promise.all([
      a.directory.vdc('vdc-a'),
      a.directory.templateVm('templates', 'ubuntu-2404-kube-v1.35'),
    ]);
    for (let i = 0; i < 5; i++) await a.vcd.xml('GET', '/api/org');
    expect(connections.connect(site, { ...alice }).session).toBe(a.session); // same credentials: same session
    const bob = connections.connect(site, { org: 'tenant-b', refreshToken: 'bob-api-token' });
    await bob.vcd.xml('GET', '/api/org');
    expect(count('GET /api/versions')).toBe(1);
    expect(count('POST /cloudapi/1.0.0/sessions')).toBe(1);
    expect(count('POST /oauth/tenant/{org}/token')).toBe(1);
    expect(connections.logins).toBe(2);
    expect(calls.every((c) => !c.path.includes('alice'))).toBe(true);
    connections.close();
  });

  it('logs in again once when the token expired, and the call succeeds', async () => {
    const connections = new Connections();
    const { vcd, session } = connections.connect({ url: sim.url, caPem: sim.caPem }, alice);
    await vcd.xml('GET', '/api/org');
    sim.faults.expireTokens();
    await Promise.all([vcd.xml('GET', '/api/org'), vcd.xml('GET', '/api/org'), vcd.xml('GET', '/api/org')]);
    expect(session.logins).toBe(2);
    connections.close();
  });

  it('returns a write’s task at once; a later read sees it finish', async () => {
    const connections = new Connections();
    const { vcd, directory } = connections.connect({ url: sim.url, caPem: sim.caPem }, alice);
    const vdc = await directory.vdc('vdc-a');
    const networks = await directory.networks('vdc-a', ['net-a']);
    const started = Date.now();
    const task = await composeVApp(vcd, vdc.href, { name: 'client-test', description: 'marker', networks });
    expect(Date.now() - started).toBeLessThan(300); // the task takes 300 ms; we did not wait for it
    expect(taskRunning(task)).toBe(true);
    expect(task.ownerHref).toMatch(/\/api\/vApp\/vapp-/);
    const vapp = await getVApp(vcd, task.ownerHref as string);
    expect(vapp).toMatchObject({ name: 'client-test', description: 'marker', vms: [] });
    let done = task;
    for (let i = 0; i < 50 && taskRunning(done); i++) {
      await new Promise((r) => setTimeout(r, 50));
      done = await vcd.task(task.href);
    }
    expect(done.status).toBe('success');
    connections.close();
  });

  it('turns VCD’s error body into a VcdError (403 for what does not exist)', async () => {
    const connections = new Connections();
    const { vcd } = connections.connect({ url: sim.url, caPem: sim.caPem }, alice);
    const err = (await vcd
      .xml('GET', '/api/vApp/vapp-00000000-0000-0000-0000-000000000000')
      .catch((e) => e)) as VcdError;
    expect(err).toBeInstanceOf(VcdError);
    expect(err.status).toBe(403);
    expect(err.notFound).toBe(true);
    expect(err.minorErrorCode).toMatch(/ACCESS_TO_RESOURCE_IS_FORBIDDEN|FORBIDDEN/);
    connections.close();
  });

  it('keeps to the site’s rate: 12 calls at 10/s with a burst of 2 take about a second', async () => {
    const connections = new Connections({ qps: 10, burst: 2 });
    const { vcd } = connections.connect({ url: sim.url, caPem: sim.caPem }, alice);
    await vcd.xml('GET', '/api/org'); // login and version first
    await new Promise((r) => setTimeout(r, 250));
    const started = Date.now();
    await Promise.all(Array.from({ length: 12 }, () => vcd.xml('GET', '/api/org')));
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    connections.close();
  });
});
