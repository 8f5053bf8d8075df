/**
 * The NIC decisions: which NICs a machine wants and how each gets its address, and the cloud-init
 * network config (v2) the guest is given: every NIC present, matched by its MAC, each mode right
 * (MANUAL: the claimed address; POOL: VCD's address when known; DHCP: DHCP), one default route.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addressingOf,
  awaitedClaims,
  type ClaimedAddress,
  claimNameFor,
  claimNamesOf,
  guestNics,
  type IpAllocationMode,
  type NetworkAddressing,
  type NetworkInterfaceSpec,
  nicIntents,
  type ObservedNic,
} from '../src/decide/nics.js';
import { metadataFor, networkConfig } from '../src/guestinfo.js';

const POOL_REF = { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool', name: 'pool-a' };
const mode = fc.constantFrom<IpAllocationMode>('POOL', 'DHCP', 'MANUAL');
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
const mac = fc
  .array(fc.nat(255), { minLength: 3, maxLength: 3 })
  .map((b) => ['00', '50', '56', ...b.map((x) => x.toString(16).padStart(2, '0'))].join(':').toUpperCase());

/** A machine: its networks (primary first), a mode for some of its NICs, and what VCD and IPAM report. */
const machine = fc.integer({ min: 1, max: 6 }).chain((count) =>
  fc.record({
    networks: fc.constant(Array.from({ length: count }, (_, i) => `net-${i}`)),
    modes: fc.array(mode, { maxLength: count }),
    observed: fc.array(
      fc.record({ mac: fc.option(mac, { nil: undefined }), ip: fc.option(ipv4, { nil: undefined }) }),
      {
        minLength: count,
        maxLength: count,
      },
    ),
    claimed: fc.array(
      fc.option(
        fc.record({
          address: ipv4,
          prefix: fc.integer({ min: 8, max: 30 }),
          gateway: fc.option(ipv4, { nil: undefined }),
        }),
        { nil: undefined },
      ),
      { minLength: count, maxLength: count },
    ),
    addressing: fc.array(
      fc.record({
        prefixLength: fc.integer({ min: 8, max: 30 }),
        gateway: ipv4,
        dns: fc.array(ipv4, { maxLength: 2 }),
      }),
      { minLength: count, maxLength: count },
    ),
  }),
);

const specsOf = (modes: IpAllocationMode[]): NetworkInterfaceSpec[] =>
  modes.map((m) =>
    m === 'MANUAL' ? { ipAllocationMode: m, addressesFromPools: [POOL_REF] } : { ipAllocationMode: m },
  );

describe('nicIntents', () => {
  it('one NIC per network, primary first; an absent entry is POOL; MANUAL names its claim', () => {
    fc.assert(
      fc.property(machine, ({ networks, modes }) => {
        const intents = nicIntents(networks, specsOf(modes), 'vm-a');
        if ('error' in intents) throw new Error(intents.error);
        expect(intents.map((n) => n.network)).toEqual(networks);
        intents.forEach((n, i) => {
          expect(n.index).toBe(i);
          expect(n.mode).toBe(modes[i] ?? 'POOL');
          expect(n.claimName).toBe(n.mode === 'MANUAL' ? claimNameFor('vm-a', i) : undefined);
        });
        expect(claimNamesOf(specsOf(modes), 'vm-a')).toEqual(
          intents.flatMap((n) => (n.claimName ? [n.claimName] : [])),
        );
      }),
    );
  });

  it('refuses more entries than NICs, MANUAL without one pool, and a pool for another mode', () => {
    expect(nicIntents(['a'], [{}, {}], 'm')).toEqual({
      error: expect.stringMatching(/2 entries but the VM has 1 NICs/),
    });
    expect(nicIntents(['a'], [{ ipAllocationMode: 'MANUAL' }], 'm')).toEqual({
      error: expect.stringMatching(/MANUAL needs exactly one pool/),
    });
    expect(nicIntents(['a'], [{ ipAllocationMode: 'DHCP', addressesFromPools: [POOL_REF] }], 'm')).toEqual({
      error: expect.stringMatching(/addressesFromPools is for MANUAL, not DHCP/),
    });
  });

  it('claim names are valid object names, stable, distinct per NIC, even for the longest machine names', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,251}[a-z0-9])?$/),
        fc.nat(9),
        fc.nat(9),
        (name, i, j) => {
          const a = claimNameFor(name, i);
          expect(a.length).toBeLessThanOrEqual(253);
          expect(a).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
          expect(claimNameFor(name, i)).toBe(a);
          if (i !== j) expect(claimNameFor(name, j)).not.toBe(a);
        },
      ),
    );
  });
});

describe('addresses and the guest’s network config', () => {
  it('every NIC is in the config, matched by MAC; MANUAL static from its claim, POOL static when VCD knows the address, DHCP by DHCP; one default route', () => {
    fc.assert(
      fc.property(machine, ({ networks, modes, observed, claimed, addressing }) => {
        const intents = nicIntents(networks, specsOf(modes), 'vm-a');
        if ('error' in intents) throw new Error(intents.error);
        const claims = new Map<string, ClaimedAddress>();
        intents.forEach((n, i) => {
          const c = claimed[i];
          if (n.claimName && c)
            claims.set(n.claimName, c.gateway ? c : { address: c.address, prefix: c.prefix });
        });
        const seen: ObservedNic[] = observed.map((o, i) => ({
          index: i,
          network: networks[i] as string,
          ...(o.mac ? { mac: o.mac } : {}),
          ...(o.ip ? { ip: o.ip } : {}),
        }));
        const nets = new Map<string, NetworkAddressing>(
          networks.map((n, i) => [n, addressing[i] as NetworkAddressing]),
        );
        // The VM is made only once every MANUAL NIC has its address; the create carries it.
        const awaited = awaitedClaims(intents, claims);
        expect(awaited).toEqual(
          intents.flatMap((n) => (n.claimName && !claims.has(n.claimName) ? [n.claimName] : [])),
        );
        addressingOf(intents, claims).forEach((a, i) => {
          expect(a.mode).toBe(intents[i]?.mode);
          const claim = intents[i]?.claimName ? claims.get(intents[i]?.claimName as string) : undefined;
          expect(a.ip).toBe(claim?.address);
        });

        const config = networkConfig(guestNics(intents, seen, claims, nets));
        expect(config.version).toBe(2);
        expect(Object.keys(config.ethernets).sort()).toEqual(networks.map((_, i) => `eth${i}`).sort());
        let defaultRoutes = 0;
        intents.forEach((intent, i) => {
          const eth = config.ethernets[`eth${i}`] as Record<string, unknown>;
          const o = observed[i];
          if (o?.mac) expect(eth.match).toEqual({ macaddress: o.mac.toLowerCase() });
          else expect(eth.match).toBeUndefined();
          const claim = intent.claimName ? claims.get(intent.claimName) : undefined;
          const net = addressing[i] as NetworkAddressing;
          const want =
            intent.mode === 'MANUAL' && claim
              ? `${claim.address}/${claim.prefix}`
              : intent.mode === 'POOL' && o?.ip
                ? `${o.ip}/${net.prefixLength}`
                : undefined;
          if (want) {
            expect(eth.dhcp4).toBe(false);
            expect(eth.addresses).toEqual([want]);
          } else {
            expect(eth.dhcp4).toBe(true);
            expect(eth.addresses).toBeUndefined();
          }
          const routes = eth.routes as Array<{ to: string; via: string }> | undefined;
          if (routes) {
            defaultRoutes += 1;
            expect(i).toBe(0);
            expect(routes[0]?.via).toBe(claim?.gateway ?? net.gateway);
          }
        });
        expect(defaultRoutes).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('no NICs known: eth0 by DHCP, as before any NIC is seen', () => {
    const meta = JSON.parse(metadataFor({ instanceId: 'i', hostname: 'h' }));
    expect(meta.network).toEqual({ version: 2, ethernets: { eth0: { dhcp4: true } } });
  });
});
