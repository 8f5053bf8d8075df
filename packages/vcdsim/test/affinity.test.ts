/** VM affinity rules over HTTPS: the VDC's links, create as a task, list, update, refusals, delete. */
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { parseXml, pathOf, startVirtual, Tenant } from './client.js';
import { addVms, composeVApp, lookups, MT, run } from './flows.js';

const rule = (name: string, vmHrefs: string[], polarity = 'Anti-Affinity', mandatory = false) =>
  `<VmAffinityRule xmlns="http://www.vmware.com/vcloud/v1.5"><Name>${name}</Name><IsEnabled>true</IsEnabled>` +
  `<IsMandatory>${mandatory}</IsMandatory><Polarity>${polarity}</Polarity><VmReferences>` +
  vmHrefs.map((h) => `<VmReference href="${h}"/>`).join('') +
  '</VmReferences></VmAffinityRule>';

describe('VM affinity rules', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  let bob: Tenant;
  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
    bob = await Tenant.login(sim, 'bob', 'tenant-b');
  });
  afterAll(() => sim.stop());

  it('keeps VMs apart with a rule made, listed, updated and deleted through tasks', async () => {
    const l = await lookups(alice);
    const vapp = await composeVApp(sim, alice, l, 'aff');
    const vms = await addVms(sim, alice, l, vapp, [{ name: 'cp-0' }, { name: 'cp-1' }, { name: 'cp-2' }]);
    const hrefs = Object.values(vms).map((p) => `${sim.url}${p}`);
    const vdc = parseXml((await alice.xml('GET', pathOf(l.vdcHref))).text).Vdc;
    const links = vdc.Link.filter((x: Record<string, string>) =>
      String(x['@type']).includes('vmaffinityrule'),
    );
    expect(links.map((x: Record<string, string>) => x['@rel']).sort()).toEqual(['add', 'down']);
    const rulesPath = `${pathOf(l.vdcHref)}/vmAffinityRules`;

    expect(
      await run(sim, alice, 'POST', rulesPath, rule('cp', hrefs.slice(0, 2)), MT('vmaffinityrule')),
    ).toBe('success');
    const list = parseXml((await alice.xml('GET', rulesPath)).text).VmAffinityRules;
    const made = [list.VmAffinityRule].flat()[0];
    expect(made).toMatchObject({
      Name: 'cp',
      Polarity: 'Anti-Affinity',
      IsEnabled: 'true',
      IsMandatory: 'false',
    });
    expect(made['@id']).toMatch(/^urn:vcloud:vmaffinityrule:/);
    const rulePath = pathOf(made['@href']);
    expect(
      await run(sim, alice, 'PUT', rulePath, rule('cp', hrefs, 'Anti-Affinity', true), MT('vmaffinityrule')),
    ).toBe('success');
    const updated = parseXml((await alice.xml('GET', rulePath)).text).VmAffinityRule;
    expect(updated.IsMandatory).toBe('true');
    expect(updated.VmReferences.VmReference.map((v: Record<string, string>) => v['@name']).sort()).toEqual([
      'cp-0',
      'cp-1',
      'cp-2',
    ]);

    const one = await alice.xml('POST', rulesPath, rule('one', hrefs.slice(0, 1)), MT('vmaffinityrule'));
    expect(one.status).toBe(400);
    const twice = await alice.xml(
      'POST',
      rulesPath,
      rule('twice', [hrefs[0]!, hrefs[0]!]),
      MT('vmaffinityrule'),
    );
    expect(twice.status).toBe(400);
    const polarity = await alice.xml('POST', rulesPath, rule('p', hrefs, 'Apart'), MT('vmaffinityrule'));
    expect(polarity.status).toBe(400);
    expect((await bob.xml('GET', rulePath)).status).toBe(403);

    expect(await run(sim, alice, 'DELETE', rulePath)).toBe('success');
    expect(parseXml((await alice.xml('GET', rulesPath)).text).VmAffinityRules.VmAffinityRule).toBeUndefined();
  });
});
