/** Version negotiation, sessions, tokens and tenancy, with VCD's status codes and error bodies. */

import { randomUUID } from 'node:crypto';
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { JSON_ACCEPT, parseXml, pathOf, request, startVirtual, Tenant, XML_ACCEPT } from './client.js';
import { composeParams, recomposeParams } from './fixtures.js';
import { addVms, composeVApp, lookups, MT } from './flows.js';

const basic = (u: string) => `Basic ${Buffer.from(u).toString('base64')}`;

function xmlError(text: string) {
  return parseXml(text).Error;
}

describe('versions and sessions', () => {
  let sim: VcdSim<ManualClock>;
  beforeAll(async () => {
    sim = await startVirtual({ tokenLifetimeMs: 60_000 });
  });
  afterAll(() => sim.stop());

  it('lists the supported versions without authentication', async () => {
    const res = await request(sim, 'GET', '/api/versions');
    expect(res.status).toBe(200);
    const versions = parseXml(res.text).SupportedVersions.VersionInfo.map(
      (v: { Version: string }) => v.Version,
    );
    expect(versions).toContain('37.2');
    expect(res.headers['x-vmware-vcloud-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.text).toContain('xmlns="http://www.vmware.com/vcloud/versions"');
  });

  it('answers 406 NOT_ACCEPTABLE for a missing or unsupported version', async () => {
    const alice = await Tenant.login(sim);
    for (const accept of ['application/*+xml;version=12.0', 'application/*+xml']) {
      const res = await request(sim, 'GET', '/api/org', {
        headers: { Accept: accept, Authorization: `Bearer ${alice.token}` },
      });
      expect(res.status).toBe(406);
      expect(res.headers['content-type']).toMatch(/^application\/vnd\.vmware\.vcloud\.error\+xml/);
      expect(xmlError(res.text)).toMatchObject({
        '@majorErrorCode': '406',
        '@minorErrorCode': 'NOT_ACCEPTABLE',
      });
    }
    const json = await request(sim, 'GET', '/cloudapi/1.0.0/edgeGateways', {
      headers: { Accept: 'application/json;version=99.0', Authorization: `Bearer ${alice.token}` },
    });
    expect(json.status).toBe(406);
    expect(JSON.parse(json.text)).toMatchObject({ minorErrorCode: 'NOT_ACCEPTABLE' });
  });

  it('logs in with Basic user@org:password and returns the JWT in a header', async () => {
    const res = await request(sim, 'POST', '/cloudapi/1.0.0/sessions', {
      headers: {
        Accept: 'application/*;version=37.2',
        Authorization: basic('alice@tenant-a:alice-password'),
      },
    });
    expect(res.status).toBe(200);
    const token = String(res.headers['x-vmware-vcloud-access-token']);
    expect(token.split('.')).toHaveLength(3);
    expect(JSON.parse(res.text)).toMatchObject({ user: { name: 'alice' }, org: { name: 'tenant-a' } });
    // Both header forms are accepted.
    const viaHeader = await request(sim, 'GET', '/api/org', {
      headers: { Accept: XML_ACCEPT, 'X-VMWARE-VCLOUD-ACCESS-TOKEN': token },
    });
    const viaBearer = await request(sim, 'GET', '/api/org', {
      headers: { Accept: XML_ACCEPT, Authorization: `Bearer ${token}` },
    });
    expect([viaHeader.status, viaBearer.status]).toEqual([200, 200]);
    expect(parseXml(viaBearer.text).OrgList.Org['@name']).toBe('tenant-a');
    const current = await request(sim, 'GET', '/cloudapi/1.0.0/sessions/current', {
      headers: { Accept: JSON_ACCEPT, Authorization: `Bearer ${token}` },
    });
    expect(JSON.parse(current.text).user.name).toBe('alice');
  });

  it('refuses bad credentials with 401', async () => {
    for (const cred of [
      'alice@tenant-a:wrong',
      'alice@tenant-b:alice-password',
      'nobody@tenant-a:x',
      'no-org:x',
    ]) {
      const res = await request(sim, 'POST', '/cloudapi/1.0.0/sessions', {
        headers: { Accept: JSON_ACCEPT, Authorization: basic(cred) },
      });
      expect(res.status, cred).toBe(401);
      expect(JSON.parse(res.text).minorErrorCode).toBe('UNAUTHORIZED');
    }
    const forged = await request(sim, 'GET', '/api/org', {
      headers: { Accept: XML_ACCEPT, Authorization: 'Bearer a.b.c' },
    });
    expect(forged.status).toBe(401);
    expect(xmlError(forged.text)).toMatchObject({
      '@majorErrorCode': '401',
      '@minorErrorCode': 'UNAUTHORIZED',
    });
  });

  it('expires tokens after their lifetime (401) and refreshes with an API token', async () => {
    const alice = await Tenant.login(sim);
    expect((await alice.xml('GET', '/api/org')).status).toBe(200);
    sim.clock.advance(60_001);
    const expired = await alice.xml('GET', '/api/org');
    expect(expired.status).toBe(401);
    expect(xmlError(expired.text)['@minorErrorCode']).toBe('UNAUTHORIZED');
    expect((await alice.json('GET', '/cloudapi/1.0.0/edgeGateways')).status).toBe(401);

    const form = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
    const refreshed = await request(sim, 'POST', '/oauth/tenant/tenant-a/token', {
      headers: form,
      body: 'grant_type=refresh_token&refresh_token=alice-api-token',
    });
    expect(refreshed.status).toBe(200);
    const grant = JSON.parse(refreshed.text);
    expect(grant).toMatchObject({ token_type: 'Bearer', expires_in: 60 });
    expect((await new Tenant(sim, grant.access_token).xml('GET', '/api/org')).status).toBe(200);
    const wrongOrg = await request(sim, 'POST', '/oauth/tenant/tenant-b/token', {
      headers: form,
      body: 'grant_type=refresh_token&refresh_token=alice-api-token',
    });
    expect(wrongOrg.status).toBe(400);
    expect(
      (
        await request(sim, 'POST', '/oauth/provider/token', {
          headers: form,
          body: 'grant_type=refresh_token&refresh_token=alice-api-token',
        })
      ).status,
    ).toBe(400);
  });

  it('ends a session on DELETE sessions/current, and the fault expires every token', async () => {
    const a = await Tenant.login(sim);
    expect((await a.json('DELETE', '/cloudapi/1.0.0/sessions/current')).status).toBe(204);
    expect((await a.xml('GET', '/api/org')).status).toBe(401);
    const b = await Tenant.login(sim);
    sim.faults.expireTokens();
    expect((await b.xml('GET', '/api/org')).status).toBe(401);
  });
});

describe('tenancy', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  let bob: Tenant;
  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
    bob = await Tenant.login(sim, 'bob', 'tenant-b');
  });
  afterAll(() => sim.stop());

  it("answers 403 for another org's objects, exactly as for objects that do not exist", async () => {
    const l = await lookups(alice);
    const vappPath = await composeVApp(sim, alice, l, 'private');
    const vms = await addVms(sim, alice, l, vappPath, [{ name: 'secret-vm' }]);
    const task = sim.inspect.tasks()[0]!;
    const theirs = [
      pathOf(l.vdcHref),
      pathOf(l.netHref),
      vappPath,
      vms['secret-vm']!,
      `/api/task/${task.id}`,
      pathOf(l.templateVmHref),
      `${vappPath}/metadata`,
    ];
    const missing = [
      `/api/vdc/${randomUUID()}`,
      `/api/vApp/vm-${randomUUID()}`,
      `/api/vApp/vapp-${randomUUID()}`,
      `/api/task/${randomUUID()}`,
    ];
    for (const p of [...theirs, ...missing]) {
      const res = await bob.xml('GET', p);
      expect(res.status, p).toBe(403);
      expect(xmlError(res.text), p).toMatchObject({
        '@majorErrorCode': '403',
        '@minorErrorCode': 'ACCESS_TO_RESOURCE_IS_FORBIDDEN',
      });
    }
    const compose = await bob.xml(
      'POST',
      `${pathOf(l.vdcHref)}/action/composeVApp`,
      composeParams('x', l.netHref),
      MT('composeVAppParams'),
    );
    expect(compose.status).toBe(403);
    expect((await bob.xml('POST', `${vms['secret-vm']}/power/action/powerOn`)).status).toBe(403);
    expect((await bob.xml('DELETE', vappPath)).status).toBe(403);
    // Bob's own vApp cannot be built from Alice's template.
    const bl = await lookups(bob, 'vdc-b', 'net-b', 'ubuntu-2404');
    const bobApp = await composeVApp(sim, bob, bl, 'bobs');
    const steal = await bob.xml(
      'POST',
      `${bobApp}/action/recomposeVApp`,
      recomposeParams([{ templateVmHref: l.templateVmHref, name: 'x', network: 'net-b' }]),
      MT('recomposeVAppParams'),
    );
    expect(steal.status).toBe(403);
    // Queries only ever show the caller's org.
    const q = parseXml((await bob.xml('GET', '/api/query?type=vApp')).text).QueryResultRecords;
    expect(q.VAppRecord.map((r: { '@name': string }) => r['@name'])).toEqual(['bobs']);
    const wrongContext = await request(sim, 'GET', '/cloudapi/1.0.0/edgeGateways', {
      headers: {
        Accept: JSON_ACCEPT,
        Authorization: `Bearer ${bob.token}`,
        'X-VMWARE-VCLOUD-TENANT-CONTEXT': sim.inspect.world.orgByName('tenant-a')!.id,
      },
    });
    expect(wrongContext.status).toBe(403);
  });
});
