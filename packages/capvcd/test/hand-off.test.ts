/** The CPI/CSI hand-off: from the spec and names alone; the cluster id unique per namespace and name. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VCDCluster } from '../src/api/types.js';
import { handOff, infraIdFor, NO_RDE_PREFIX } from '../src/cluster/hand-off.js';

/** A DNS-1123 label (what namespaces and object names are made of: no `_`). */
const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/);

describe('the hand-off', () => {
  it('gives distinct clusters distinct ids, all with the NO_RDE_ prefix CPI and CSI read', () => {
    fc.assert(
      fc.property(label, label, label, label, (ns1, n1, ns2, n2) => {
        const a = infraIdFor(ns1, n1);
        expect(a.startsWith(NO_RDE_PREFIX)).toBe(true);
        expect(a === infraIdFor(ns2, n2)).toBe(ns1 === ns2 && n1 === n2);
      }),
    );
  });

  it('copies site, org, VDC and network and names the vApp as the machines do', () => {
    const c = {
      metadata: { namespace: 'team', name: 'prod' },
      spec: { site: 'https://vcd.example.com', org: 'o', ovdc: 'v', ovdcNetwork: 'n' },
    } as unknown as VCDCluster;
    expect(handOff(c)).toEqual({
      site: 'https://vcd.example.com',
      org: 'o',
      ovdc: 'v',
      ovdcNetwork: 'n',
      vappName: 'prod',
      infraId: 'NO_RDE_team_prod',
    });
  });
});
