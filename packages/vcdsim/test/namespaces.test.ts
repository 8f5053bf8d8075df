/**
 * Namespaces both ways. Every XML document vcdsim writes, on every legacy route, parses with a
 * namespace-aware parser (saxes, as strict as Python's or Java's), for the answers of a provider's
 * flow and for a call of every route; and request bodies are read with their namespaces, so an
 * unbound prefix or an element in the wrong namespace is VCD's 400, while any prefix a client binds
 * to the right namespace is fine.
 */
import type { ManualClock } from '@capstan/runtime/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { type Answer, parseXml, startVirtual, Tenant } from './client.js';
import { addVms, boot, composeVApp, type Lookups, lookups, MT, run } from './flows.js';
import { namespaceErrors } from './ns-check.js';

/** A tenant that checks every XML answer it gets and remembers the route it came from. */
class CheckingTenant extends Tenant {
  readonly problems: { route: string; status: number; errors: string[] }[] = [];

  override async xml(method: string, path: string, body?: string, contentType?: string): Promise<Answer> {
    const res = await super.xml(method, path, body, contentType);
    const type = String(res.headers['content-type'] ?? '');
    if (type.includes('xml')) {
      const errors = namespaceErrors(res.text);
      if (errors.length > 0)
        this.problems.push({
          route: this.sim.inspect.requests().at(-1)?.route ?? path,
          status: res.status,
          errors,
        });
    }
    return res;
  }
}

/** The concrete path of a route pattern, its `{id}` and `{key}` taken from live objects. */
function fill(sim: VcdSim, pattern: string, vmId: string, vappId: string, taskId: string): string {
  const w = sim.inspect.world;
  const first = <T>(m: Map<string, T>, pick: (t: T) => boolean = () => true) =>
    [...m.entries()].find(([, v]) => pick(v))?.[0] ?? '';
  const org = w.orgByName('tenant-a')!;
  const template = [...w.templates.values()].find((t) => t.orgId === org.id)!;
  const ids: [RegExp, string][] = [
    [/\/org\/\{id\}/, org.id],
    [/\/vdc\/\{id\}/, first(w.vdcs, (v) => v.orgId === org.id)],
    [/\/catalog\/\{id\}/, first(w.catalogs, (c) => c.orgId === org.id)],
    [/\/catalogItem\/\{id\}/, template.catalogItemId],
    [/\/vappTemplate-\{id\}/, template.id],
    [/\/vAppTemplate\/vm-\{id\}/, template.vm.id],
    [/\/network\/\{id\}/, first(w.networks, (n) => n.orgId === org.id)],
    [/\/vapp-\{id\}/, vappId],
    [/\/vApp\/vm-\{id\}/, vmId],
    [/\/task\/\{id\}/, taskId],
  ];
  let path = pattern.replace('{key}', 'cluster');
  for (const [re, id] of ids) path = path.replace(re, (m) => m.replace('{id}', id));
  return path;
}

describe('every XML answer is namespace-well-formed', () => {
  let sim: VcdSim<ManualClock>;
  let alice: CheckingTenant;
  let l: Lookups;
  beforeAll(async () => {
    sim = await startVirtual();
    const t = await Tenant.login(sim);
    alice = new CheckingTenant(sim, t.token);
    l = await lookups(alice);
  });
  afterAll(() => sim.stop());

  it('answers a provider flow with documents whose every prefix is bound', async () => {
    const vapp = await composeVApp(sim, alice, l, 'ns-flow');
    const vms = await addVms(sim, alice, l, vapp, [{ name: 'ns-0' }, { name: 'ns-1' }]);
    const vm = vms['ns-0']!;
    const keys = '<vmw:ExtraConfig ovf:required="false" vmw:key="guestinfo.userdata" vmw:value="e30="/>';
    const hw = `<ovf:VirtualHardwareSection xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1" xmlns:vmw="http://www.vmware.com/schema/ovf"><ovf:Info>hw</ovf:Info>${keys}</ovf:VirtualHardwareSection>`;
    expect(
      await run(sim, alice, 'PUT', `${vm}/virtualHardwareSection/`, hw, MT('virtualHardwareSection')),
    ).toBe('success');
    await boot(sim, alice, vm);
    for (const p of [
      vapp,
      vm,
      `${vm}/virtualHardwareSection/`,
      `${vm}/networkConnectionSection/`,
      `${vapp}/networkConfigSection/`,
    ])
      expect((await alice.xml('GET', p)).status).toBe(200);
    expect(alice.problems).toEqual([]);
  });

  it('answers a call of every legacy route with namespace-well-formed XML (errors included)', async () => {
    const vapp = await composeVApp(sim, alice, l, 'ns-routes');
    const vmPath = (await addVms(sim, alice, l, vapp, [{ name: 'r-0' }]))['r-0']!;
    const meta = `<MetadataValue xmlns="http://www.vmware.com/vcloud/v1.5" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><TypedValue xsi:type="MetadataStringValue"><Value>c1</Value></TypedValue></MetadataValue>`;
    expect(await run(sim, alice, 'PUT', `${vmPath}/metadata/cluster`, meta, MT('metadata.value'))).toBe(
      'success',
    );
    const vmId = vmPath.split('vm-')[1]!;
    const vappId = vapp.split('vapp-')[1]!;
    const taskId = sim.inspect.tasks().at(-1)!.id;
    const routes = sim.inspect.routes().filter((r) => r.includes(' /api/'));
    // Reads first, then writes with no body (VCD's error documents), deletes last.
    const order = (r: string) => (r.startsWith('GET') ? 0 : r.startsWith('DELETE') ? 2 : 1);
    for (const route of [...routes].sort((a, b) => order(a) - order(b))) {
      const [method, pattern] = route.split(' ') as [string, string];
      await alice.xml(method, fill(sim, pattern, vmId, vappId, taskId));
      sim.clock.advance(5_000);
    }
    await alice.xml('GET', '/api/no-such-thing');
    await alice.xml('PATCH', '/api/org');
    const served = sim.inspect.counts('route');
    expect(routes.filter((r) => !served[r])).toEqual([]);
    expect(alice.problems).toEqual([]);
  });
});

const VCLOUD = 'http://www.vmware.com/vcloud/v1.5';
const OVF = 'http://schemas.dmtf.org/ovf/envelope/1';
const VMW = 'http://www.vmware.com/schema/ovf';

describe('request bodies are read with their namespaces', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  let l: Lookups;
  let vm: string;
  let vapp: string;
  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
    l = await lookups(alice);
    vapp = await composeVApp(sim, alice, l, 'ns-requests');
    vm = (await addVms(sim, alice, l, vapp, [{ name: 'q-0' }]))['q-0']!;
  });
  afterAll(() => sim.stop());

  const hwPut = (root: string, inner: string) =>
    alice.xml(
      'PUT',
      `${vm}/virtualHardwareSection/`,
      `${root}${inner}</ovf:VirtualHardwareSection>`,
      MT('virtualHardwareSection'),
    );
  const refused = (res: Answer, message: RegExp) => {
    expect(res.status, res.text).toBe(400);
    const e = parseXml(res.text).Error;
    expect(e['@majorErrorCode']).toBe('400');
    expect(e['@minorErrorCode']).toBe('BAD_REQUEST');
    expect(e['@message']).toMatch(message);
  };

  it('takes any prefix the client binds to the right namespace', async () => {
    const body = `<a:VirtualHardwareSection xmlns:a="${OVF}" xmlns:b="${VMW}"><a:Info>hw</a:Info><b:ExtraConfig a:required="false" b:key="guestinfo.x" b:value="1"/></a:VirtualHardwareSection>`;
    const res = await alice.xml('PUT', `${vm}/virtualHardwareSection/`, body, MT('virtualHardwareSection'));
    expect(res.status, res.text).toBe(202);
  });

  it('refuses an unbound element prefix with VCD 400', async () => {
    refused(
      await hwPut(
        `<ovf:VirtualHardwareSection xmlns:ovf="${OVF}">`,
        '<ovf:Info>hw</ovf:Info><vmw:ExtraConfig vmw:key="k" vmw:value="v"/>',
      ),
      /prefix "vmw" for element "vmw:ExtraConfig" is not bound/,
    );
  });

  it('refuses an unbound attribute prefix with VCD 400', async () => {
    refused(
      await hwPut(
        `<ovf:VirtualHardwareSection xmlns:ovf="${OVF}" xmlns:vmw="${VMW}">`,
        '<ovf:Info>hw</ovf:Info><vmw:ExtraConfig vcloud:key="k" vmw:value="v"/>',
      ),
      /prefix "vcloud" for attribute "vcloud:key"/,
    );
  });

  it('refuses an element in the wrong namespace with VCD 400', async () => {
    // ExtraConfig in the vcloud (default) namespace instead of vmw.
    refused(
      await hwPut(
        `<ovf:VirtualHardwareSection xmlns="${VCLOUD}" xmlns:ovf="${OVF}" xmlns:vmw="${VMW}">`,
        '<ovf:Info>hw</ovf:Info><ExtraConfig vmw:key="k" vmw:value="v"/>',
      ),
      /ExtraConfig.*is expected/,
    );
    // The section's Info in the vcloud namespace instead of ovf.
    const section = `<NetworkConfigSection xmlns="${VCLOUD}"><Info>n</Info></NetworkConfigSection>`;
    refused(
      await alice.xml('PUT', `${vapp}/networkConfigSection/`, section, MT('networkConfigSection')),
      /Info.*schemas\.dmtf\.org\/ovf/,
    );
    // A root in another namespace than the schema's.
    refused(
      await hwPut('<ovf:VirtualHardwareSection xmlns:ovf="urn:not-ovf">', '<ovf:Info>x</ovf:Info>'),
      /cvc-elt\.1\.a/,
    );
  });

  it('refuses an attribute in the wrong namespace with VCD 400', async () => {
    refused(
      await hwPut(
        `<ovf:VirtualHardwareSection xmlns:ovf="${OVF}" xmlns:vmw="${VMW}">`,
        '<ovf:Info>hw</ovf:Info><vmw:ExtraConfig ovf:key="k" vmw:value="v"/>',
      ),
      /Attribute 'ovf:key' is not allowed/,
    );
  });

  it('leaves the VM unchanged by a refused body', async () => {
    const doc = (await alice.xml('GET', `${vm}/virtualHardwareSection/`)).text;
    expect(doc).not.toContain('vmw:key="k"');
  });
});

/** Characters that need escaping, non-ASCII, and plain text. */
const text = fc.stringMatching(/^[A-Za-z0-9 &<>"'.:_\-=éü\u4e2d]{1,24}$/);
const op = fc.oneof(
  fc.record({
    kind: fc.constant('extraConfig' as const),
    key: fc.stringMatching(/^guestinfo\.[a-z]{1,8}$/),
    value: text,
  }),
  fc.record({
    kind: fc.constant('metadata' as const),
    key: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
    value: text,
  }),
  fc.record({ kind: fc.constant('describe' as const), value: text }),
  fc.record({ kind: fc.constant('power' as const), on: fc.boolean() }),
);

describe('namespace property', () => {
  let sim: VcdSim<ManualClock>;
  let alice: CheckingTenant;
  let l: Lookups;
  beforeAll(async () => {
    sim = await startVirtual();
    alice = new CheckingTenant(sim, (await Tenant.login(sim)).token);
    l = await lookups(alice);
  });
  afterAll(() => sim.stop());

  it('answers random operations on random VMs with 0 unbound prefixes', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.array(op, { maxLength: 6 }),
        async (vmCount, ops) => {
          const vapp = await composeVApp(sim, alice, l, `prop-${n++}`);
          const vms = Object.values(
            await addVms(
              sim,
              alice,
              l,
              vapp,
              Array.from({ length: vmCount }, (_, i) => ({ name: `p-${i}` })),
            ),
          );
          const vm = vms[0]!;
          for (const o of ops) await apply(sim, alice, vm, o);
          for (const p of [
            vapp,
            ...vms,
            `${vm}/virtualHardwareSection/`,
            `${vm}/metadata`,
            `${vapp}/networkConfigSection/`,
            `/api/query?type=vm&format=records&filter=containerName==prop-${n - 1}`,
          ])
            await alice.xml('GET', p);
          return alice.problems.length === 0;
        },
      ),
      { numRuns: 15 },
    );
    expect(alice.problems).toEqual([]);
  });
});

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/** One random operation through the API (its outcome does not matter, only the answers' XML). */
async function apply(sim: VcdSim<ManualClock>, t: Tenant, vm: string, o: Op): Promise<void> {
  if (o.kind === 'extraConfig')
    await t.xml(
      'PUT',
      `${vm}/virtualHardwareSection/`,
      `<ovf:VirtualHardwareSection xmlns:ovf="${OVF}" xmlns:vmw="${VMW}"><ovf:Info>hw</ovf:Info><vmw:ExtraConfig vmw:key="${o.key}" vmw:value="${esc(o.value)}"/></ovf:VirtualHardwareSection>`,
      MT('virtualHardwareSection'),
    );
  else if (o.kind === 'metadata')
    await t.xml(
      'PUT',
      `${vm}/metadata/${o.key}`,
      `<MetadataValue xmlns="${VCLOUD}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><TypedValue xsi:type="MetadataStringValue"><Value>${esc(o.value)}</Value></TypedValue></MetadataValue>`,
      MT('metadata.value'),
    );
  else if (o.kind === 'describe')
    await t.xml(
      'POST',
      `${vm}/action/reconfigureVm`,
      `<Vm xmlns="${VCLOUD}" name="p-0"><Description>${esc(o.value)}</Description></Vm>`,
      MT('vm'),
    );
  else await t.xml('POST', `${vm}/power/action/${o.on ? 'powerOn' : 'powerOff'}`);
  sim.clock.advance(5_000);
}

type Op =
  | { kind: 'extraConfig'; key: string; value: string }
  | { kind: 'metadata'; key: string; value: string }
  | { kind: 'describe'; value: string }
  | { kind: 'power'; on: boolean };
