/**
 * A vApp read leaves each VM's VirtualHardwareSection and VmSpecSection unparsed until looked at
 * (every machine of a cluster reads the vApp of all its VMs): what it then reads must be what a
 * whole parse reads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VcdClient } from '../src/vcd/client.js';
import { getVApp } from '../src/vcd/vapp.js';
import { childOf, esc, listOf, NS, parseKept, parseXml, parseXmlKeeping } from '../src/vcd/xml.js';

const PATHS = ['*.Vm.VirtualHardwareSection', '*.Vm.VmSpecSection'];

interface VmShape {
  name: string;
  guestinfo: Array<[string, string]>;
  cpus: number;
  namedDisk?: string;
}

const vmXml = (vm: VmShape) => `
  <Vm name="${esc(vm.name)}" href="https://vcd/api/vApp/vm-${vm.name}" status="8" deployed="false">
    <Description>ours</Description>
    <ovf:VirtualHardwareSection ovf:transport="">
      <ovf:Info>Virtual hardware requirements</ovf:Info>
      ${vm.guestinfo.map(([k, v]) => `<vmw:ExtraConfig ovf:required="false" vmw:key="${esc(k)}" vmw:value="${esc(v)}"/>`).join('')}
    </ovf:VirtualHardwareSection>
    <VmSpecSection Modified="false"><ovf:Info>spec</ovf:Info><NumCpus>${vm.cpus}</NumCpus>
      <NumCoresPerSocket>1</NumCoresPerSocket><MemoryResourceMb><Configured>2048</Configured></MemoryResourceMb>
      <DiskSection><DiskSettings><DiskId>2000</DiskId><SizeMb>30720</SizeMb><UnitNumber>0</UnitNumber>
        <BusNumber>0</BusNumber><AdapterType>5</AdapterType></DiskSettings>
        ${vm.namedDisk ? `<DiskSettings><DiskId>2001</DiskId><Disk href="https://vcd/api/disk/1" name="${esc(vm.namedDisk)}"/></DiskSettings>` : ''}
      </DiskSection>
    </VmSpecSection>
  </Vm>`;

const vappXml = (vms: VmShape[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<VApp xmlns="${NS.vcloud}" xmlns:ovf="${NS.ovf}" xmlns:vmw="${NS.vmw}" name="c1" href="https://vcd/api/vApp/vapp-1" deployed="true">
  <Description>cluster</Description><Children>${vms.map(vmXml).join('')}</Children></VApp>`;

// Trimmed: the parser trims values (a whole parse too), and guestinfo (base64, names) has no edge spaces.
const text = fc
  .string({ unit: fc.constantFrom('a', 'Z', '0', '&', '<', '>', '"', "'", ' ', '=', '/', '+', 'é') })
  .map((s) => s.trim());
const vmShape = fc.record(
  {
    name: fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
    guestinfo: fc.array(fc.tuple(fc.stringMatching(/^guestinfo\.[a-z.]{1,12}$/), text), { maxLength: 4 }),
    cpus: fc.integer({ min: 1, max: 64 }),
    namedDisk: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
  },
  { requiredKeys: ['name', 'guestinfo', 'cpus'] },
);

/** A client that answers every GET with `body`. */
const answering = (body: string) =>
  ({ getXml: async (_href: string, parse: (t: string) => unknown) => parse(body) }) as unknown as VcdClient;

describe('a vApp read with its VMs’ sections kept for later', () => {
  it('property: a kept section, read, is what a whole parse reads', () => {
    fc.assert(
      fc.property(fc.array(vmShape, { minLength: 1, maxLength: 4 }), (vms) => {
        const xml = vappXml(vms);
        const whole = listOf(childOf(parseXml(xml).VApp, 'Children'), 'Vm');
        const kept = listOf(childOf(parseXmlKeeping(xml, PATHS).VApp, 'Children'), 'Vm');
        for (const [i, vm] of kept.entries())
          for (const name of ['VirtualHardwareSection', 'VmSpecSection'])
            expect(parseKept(vm[name], name)).toEqual(whole[i]?.[name]);
      }),
    );
  });

  it('property: each VM’s guestinfo, sizing and named disks, as written', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(vmShape, { minLength: 1, maxLength: 4, selector: (v) => v.name }),
        async (vms) => {
          const vapp = await getVApp(answering(vappXml(vms)), 'https://vcd/api/vApp/vapp-1');
          expect(vapp.vms.map((v) => v.name)).toEqual(vms.map((v) => v.name));
          for (const [i, vm] of vapp.vms.entries()) {
            const want = vms[i] as VmShape;
            // The last of a repeated key wins, as VCD keeps one value a key.
            expect(vm.extraConfig).toEqual(Object.fromEntries(want.guestinfo));
            expect(vm.hardware?.cpus).toBe(want.cpus);
            expect(vm.hardware?.disks.map((d) => d.sizeMb)).toEqual([30720]);
            expect(vm.namedDisks).toEqual(want.namedDisk ? [want.namedDisk] : undefined);
          }
        },
      ),
    );
  });

  it('an absent section reads as none', () => {
    expect(parseKept(undefined, 'VmSpecSection')).toBeUndefined();
    expect(parseKept('', 'VmSpecSection')).toEqual({});
  });
});
