/**
 * Data center groups in the seed: a group's network is offered by every member VDC (in its
 * AvailableNetworks and to vApps composed there) and is owned by the group in CloudAPI, not by a
 * VDC; a group naming a VDC or network that is not there is a seed problem.
 */
import { describe, expect, it } from 'vitest';
import { orgVdcNetworkJson } from '../src/cloudapi/json.js';
import { availableIn } from '../src/model/world.js';
import { buildWorld } from '../src/seed/load.js';
import type { Seed } from '../src/seed/schema.js';

const net = (name: string, third: number) => ({
  name,
  gateway: `10.${third}.0.1`,
  prefixLength: 24,
  staticIpPool: [{ start: `10.${third}.0.10`, end: `10.${third}.0.20` }],
});
const seed = (groups: NonNullable<Seed['orgs'][number]['vdcGroups']>): Seed => ({
  orgs: [
    {
      name: 'o',
      users: [{ name: 'u', password: 'p' }],
      vdcs: [
        { name: 'v1', networks: [net('stretched', 1), net('own', 2)] },
        { name: 'v2', networks: [net('other', 3)] },
        { name: 'v3' },
      ],
      vdcGroups: groups,
    },
  ],
});
const vdcId = (w: ReturnType<typeof buildWorld>, name: string) =>
  [...w.vdcs.values()].find((v) => v.name === name)?.id as string;

describe('data center groups', () => {
  it('offers a group’s network in every member VDC and no other; the group owns it', () => {
    const w = buildWorld(seed([{ name: 'dcg', vdcs: ['v1', 'v2'], networks: ['stretched'] }]));
    const [v1, v2, v3] = ['v1', 'v2', 'v3'].map((n) => vdcId(w, n)) as [string, string, string];
    expect(w.vdcNetwork(v2, 'stretched')?.name).toBe('stretched');
    expect(w.vdcNetwork(v1, 'stretched')?.name).toBe('stretched');
    expect(w.vdcNetwork(v3, 'stretched')).toBeUndefined();
    expect(w.vdcNetwork(v2, 'own')).toBeUndefined(); // not the group's
    const stretched = w.vdcNetwork(v1, 'stretched') as NonNullable<ReturnType<typeof w.vdcNetwork>>;
    expect([v1, v2, v3].map((v) => availableIn(stretched, v))).toEqual([true, true, false]);
    const json = orgVdcNetworkJson(w, stretched);
    expect(json.ownerRef).toMatchObject({ name: 'dcg', id: expect.stringMatching(/^urn:vcloud:vdcGroup:/) });
    expect(json.orgVdc).toBeNull();
    const own = orgVdcNetworkJson(w, w.vdcNetwork(v1, 'own') as typeof stretched);
    expect(own.ownerRef).toMatchObject({ name: 'v1' });
  });

  it('refuses a group naming a VDC or a network that is not there, or a network twice', () => {
    expect(() => buildWorld(seed([{ name: 'g', vdcs: ['v1', 'nope'], networks: ['stretched'] }]))).toThrow(
      /vdcGroups\.g\.vdcs: no VDC nope/,
    );
    expect(() => buildWorld(seed([{ name: 'g', vdcs: ['v2', 'v3'], networks: ['stretched'] }]))).toThrow(
      /no network stretched in the group's VDCs/,
    );
    expect(() =>
      buildWorld(
        seed([
          { name: 'g', vdcs: ['v1', 'v2'], networks: ['stretched'] },
          { name: 'h', vdcs: ['v1', 'v3'], networks: ['stretched'] },
        ]),
      ),
    ).toThrow(/stretched is already group g's/);
  });
});
