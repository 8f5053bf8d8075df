/** Bad input, busy entities, state errors and injected faults: VCD's status codes and error bodies, never a crash. */

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { VcdSim } from '../src/index.js';
import { parseXml, pathOf, request, SAMPLE_SEED, startVirtual, Tenant, XML_ACCEPT } from './client.js';
import { NS, recomposeParams } from './fixtures.js';
import { addVms, boot, composeVApp, type Lookups, lookups, MT, run, settle } from './flows.js';

const err = (text: string) => parseXml(text).Error;

describe('errors', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  let l: Lookups;
  let vappPath: string;
  let vmPath: string;
  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
    l = await lookups(alice);
    vappPath = await composeVApp(sim, alice, l, 'errs');
    vmPath = (await addVms(sim, alice, l, vappPath, [{ name: 'vm-1' }]))['vm-1']!;
  });
  afterAll(() => sim.stop());

  async function expect400(res: { status: number; text: string }, minor: string, message?: RegExp) {
    expect(res.status, res.text).toBe(400);
    const e = err(res.text);
    expect(e['@majorErrorCode']).toBe('400');
    expect(e['@minorErrorCode']).toBe(minor);
    if (message) expect(e['@message']).toMatch(message);
  }

  it('refuses malformed and invalid XML bodies with 400 BAD_REQUEST', async () => {
    const recompose = (body: string) =>
      alice.xml('POST', `${vappPath}/action/recomposeVApp`, body, MT('recomposeVAppParams'));
    await expect400(await recompose('<RecomposeVAppParams'), 'BAD_REQUEST', /not well-formed/);
    await expect400(await recompose(''), 'BAD_REQUEST', /no body/);
    await expect400(
      await recompose(`<!DOCTYPE x [<!ENTITY a "aaaa">]><RecomposeVAppParams ${NS}/>`),
      'BAD_REQUEST',
      /DOCTYPE/,
    );
    await expect400(
      await recompose(
        `<RecomposeVAppParams ${NS}>${'<Description>x</Description>'.repeat(700_000)}</RecomposeVAppParams>`,
      ),
      'BAD_REQUEST',
      /too large/,
    );
    await expect400(
      await recompose(`<ComposeVAppParams ${NS} name="x"/>`),
      'BAD_REQUEST',
      /ComposeVAppParams/,
    );
    await expect400(await recompose('<RecomposeVAppParams xmlns="urn:wrong"/>'), 'BAD_REQUEST', /urn:wrong/);
    await expect400(
      await recompose(`<RecomposeVAppParams ${NS}><Bogus/></RecomposeVAppParams>`),
      'BAD_REQUEST',
      /Invalid content was found starting with element 'Bogus'/,
    );
    await expect400(
      await recompose(`<RecomposeVAppParams ${NS} colour="red"/>`),
      'BAD_REQUEST',
      /Attribute 'colour' is not allowed/,
    );
    const negative = recomposeParams([{ templateVmHref: l.templateVmHref, name: 'neg', diskMb: -5 }]);
    await expect400(await recompose(negative), 'BAD_REQUEST', /non-negative integer/);
    const shrink = recomposeParams([{ templateVmHref: l.templateVmHref, name: 'small', diskMb: 10 }]);
    await expect400(await recompose(shrink), 'BAD_REQUEST', /cannot shrink/);
    const badNet = recomposeParams([{ templateVmHref: l.templateVmHref, name: 'nn', network: 'nowhere' }]);
    await expect400(await recompose(badNet), 'BAD_REQUEST', /not a network of the vApp/);
    const dup = recomposeParams([{ templateVmHref: l.templateVmHref, name: 'vm-1' }]);
    await expect400(await recompose(dup), 'DUPLICATE_NAME');
    const reconf = await alice.xml(
      'POST',
      `${vmPath}/action/reconfigureVm`,
      `<Vm ${NS} name="vm-1"><VmSpecSection><NumCpus>-2</NumCpus></VmSpecSection></Vm>`,
      MT('vm'),
    );
    await expect400(reconf, 'BAD_REQUEST');
    const meta = await alice.xml(
      'PUT',
      `${vmPath}/metadata/count`,
      `<MetadataValue ${NS} xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><TypedValue xsi:type="MetadataNumberValue"><Value>many</Value></TypedValue></MetadataValue>`,
      MT('metadata.value'),
    );
    await expect400(meta, 'BAD_REQUEST', /not a valid MetadataNumberValue/);
    expect(sim.inspect.unfinishedTasks()).toEqual([]);
    expect(sim.inspect.vm('vm-1')).toBeDefined();
  });

  it('answers 415 for a wrong content type (VCD documents 415 Unsupported Media Type)', async () => {
    const res = await alice.xml(
      'POST',
      `${vappPath}/action/recomposeVApp`,
      `<RecomposeVAppParams ${NS}/>`,
      'application/xml',
    );
    expect(res.status).toBe(415);
    expect(err(res.text)['@minorErrorCode']).toBe('UNSUPPORTED_MEDIA_TYPE');
    const json = await alice.json('POST', '/cloudapi/1.0.0/loadBalancer/pools', undefined);
    expect(json.status).toBe(415);
  });

  it('answers 404 for unknown paths and 405 for unsupported methods', async () => {
    const nf = await alice.xml('GET', '/api/nothing/here');
    expect(nf.status).toBe(404);
    expect(err(nf.text)['@minorErrorCode']).toBe('RESOURCE_NOT_FOUND');
    const na = await alice.xml('PATCH', vmPath);
    expect(na.status).toBe(405);
  });

  it('refuses a second operation on a busy entity with BUSY_ENTITY', async () => {
    const on = await alice.xml('POST', `${vmPath}/power/action/powerOn`);
    expect(on.status).toBe(202);
    const again = await alice.xml(
      'POST',
      `${vmPath}/action/reconfigureVm`,
      `<Vm ${NS} name="vm-1"/>`,
      MT('vm'),
    );
    await expect400(
      again,
      'BUSY_ENTITY',
      /^The entity Ref: com\.vmware\.vcloud\.entity\.vm:[0-9a-f-]{36} is busy completing an operation VAPP_POWER_ON\./,
    );
    const vappBusy = await alice.xml(
      'POST',
      `${vappPath}/action/recomposeVApp`,
      recomposeParams([{ templateVmHref: l.templateVmHref, name: 'vm-2' }]),
      MT('recomposeVAppParams'),
    );
    await expect400(vappBusy, 'BUSY_ENTITY');
    expect((await settle(sim, alice, parseXml(on.text).Task['@href'])).status).toBe('success');
    sim.clock.advance(10_000);
  });

  it('refuses operations the VM state does not allow', async () => {
    await expect400(
      await alice.xml('POST', `${vmPath}/power/action/powerOn`),
      'BAD_REQUEST',
      /not powered off/,
    );
    await expect400(await alice.xml('DELETE', vmPath), 'BAD_REQUEST', /powered on/);
    await expect400(await alice.xml('DELETE', vappPath), 'BAD_REQUEST', /deployed/);
    expect(await run(sim, alice, 'POST', `${vmPath}/power/action/powerOff`)).toBe('success');
    await expect400(
      await alice.xml('POST', `${vmPath}/power/action/powerOff`),
      'BAD_REQUEST',
      /not powered on/,
    );
  });

  it('fails tasks on demand with an Error child, leaving nothing half-made', async () => {
    sim.faults.failTask('vdcRecomposeVapp', { message: 'Clone failed on the datastore.' });
    const res = await alice.xml(
      'POST',
      `${vappPath}/action/recomposeVApp`,
      recomposeParams([{ templateVmHref: l.templateVmHref, name: 'doomed' }]),
      MT('recomposeVAppParams'),
    );
    const { status, task } = await settle(sim, alice, parseXml(res.text).Task['@href']);
    expect(status).toBe('error');
    expect(task.Error).toMatchObject({
      '@majorErrorCode': '500',
      '@message': 'Clone failed on the datastore.',
    });
    expect(sim.inspect.vm('doomed')).toBeUndefined();
  });

  it('exhausts an IP pool on demand: power-on fails and no address leaks', async () => {
    sim.faults.exhaustIpPool('net-a');
    expect(await run(sim, alice, 'POST', `${vmPath}/power/action/powerOn`)).toBe('error');
    const task = sim.inspect.tasks().at(-1)!;
    expect(task.error?.message).toMatch(/No IP addresses are available/);
    expect(sim.inspect.pool('net-a')?.allocated).toEqual({});
    sim.faults.clear();
    expect(await boot(sim, alice, vmPath)).toMatch(/^10\.10\.0\./);
    expect(await run(sim, alice, 'POST', `${vmPath}/power/action/powerOff`)).toBe('success');
  });

  it('answers injected 5xx and 429 bursts in the API error shape, then recovers', async () => {
    sim.faults.httpErrors(503, 2, { path: '/api/vApp/vm-{id}' });
    for (let i = 0; i < 2; i++) {
      const res = await alice.xml('GET', vmPath);
      expect(res.status).toBe(503);
      expect(err(res.text)['@majorErrorCode']).toBe('503');
    }
    expect((await alice.xml('GET', vmPath)).status).toBe(200);
    sim.faults.httpErrors(429, 1, { method: 'GET', path: '/cloudapi/' });
    const limited = await alice.json('GET', '/cloudapi/1.0.0/edgeGateways');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(JSON.parse(limited.text).minorErrorCode).toBe('TOO_MANY_REQUESTS');
  });

  it('denies access as a role change does: 403 on every matching request until cleared, others served', async () => {
    sim.faults.denyAccess({ method: 'GET', path: '/api/vApp/vm-{id}' });
    for (let i = 0; i < 3; i++) {
      const res = await alice.xml('GET', vmPath);
      expect(res.status).toBe(403);
      expect(err(res.text)['@minorErrorCode']).toBe('ACCESS_TO_RESOURCE_IS_FORBIDDEN');
    }
    expect((await alice.xml('GET', `${vmPath}/virtualHardwareSection`)).status).toBe(200);
    sim.faults.clear();
    expect((await alice.xml('GET', vmPath)).status).toBe(200);
  });

  it('refuses bad query parameters with 400', async () => {
    for (const q of [
      'type=nonsense',
      'type=vm&filter=name=',
      'type=vm&filter=(name==a',
      'type=vm&page=0',
      'type=vm&pageSize=abc',
      'type=vm&format=xml',
      '',
    ]) {
      const res = await alice.xml('GET', `/api/query?${q}`);
      expect(res.status, q).toBe(400);
      expect(err(res.text)['@minorErrorCode']).toBe('BAD_REQUEST');
    }
    expect(sim.inspect.errors()).toEqual([]);
  });

  it('keeps serving after garbage on the wire', async () => {
    const raw = await request(sim, 'POST', `${vappPath}/action/recomposeVApp`, {
      headers: {
        Accept: XML_ACCEPT,
        Authorization: `Bearer ${alice.token}`,
        'Content-Type': MT('recomposeVAppParams'),
      },
      body: '\u0000\u0001<<<>>>&&&',
    });
    expect(raw.status).toBe(400);
    expect((await alice.xml('GET', pathOf(l.vdcHref))).status).toBe(200);
  });
});

describe('a NIC on an org VDC network the vApp does not bridge', () => {
  let sim: VcdSim<ManualClock>;
  afterAll(() => sim?.stop());

  it('is refused, as VCD refuses it: a VM connects to networks of its vApp only', async () => {
    // The sample seed, with a second network in vdc-a that the vApp will not bridge.
    const seed = parseYaml(readFileSync(SAMPLE_SEED, 'utf8')) as {
      orgs: Array<{ vdcs: Array<{ networks: Array<Record<string, unknown>> }> }>;
    };
    seed.orgs[0]?.vdcs[0]?.networks.push({
      name: 'net-a-storage',
      gateway: '10.20.0.1',
      prefixLength: 24,
      staticIpPool: [{ start: '10.20.0.100', end: '10.20.0.200' }],
    });
    const path = join(mkdtempSync(join(tmpdir(), 'vcdsim-seed-')), 'seed.yaml');
    writeFileSync(path, stringifyYaml(seed));
    sim = await startVirtual({ seed: path });
    const alice = await Tenant.login(sim);
    const l = await lookups(alice);
    const vappPath = await composeVApp(sim, alice, l, 'unbridged');
    const res = await alice.xml(
      'POST',
      `${vappPath}/action/recomposeVApp`,
      recomposeParams([{ templateVmHref: l.templateVmHref, name: 'nic-x', network: 'net-a-storage' }]),
      MT('recomposeVAppParams'),
    );
    expect(res.status, res.text).toBe(400);
    expect(err(res.text)['@message']).toMatch(/"net-a-storage" .* is not a network of the vApp/);
    expect(sim.inspect.vm('nic-x')).toBeUndefined();
  });
});
