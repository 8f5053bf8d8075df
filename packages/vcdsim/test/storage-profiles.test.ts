/**
 * The storage profile a new VM or named disk asks for: the VDC's own profile is taken; any other is
 * refused, told apart (a same-org profile of another VDC vs. a missing or another org's one) so
 * that each caller answers as VCD does for its object.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildWorld, VcdError } from '../src/index.js';
import type { StorageProfile } from '../src/model/world.js';

const world = buildWorld({
  orgs: [
    {
      name: 'org-a',
      users: [{ name: 'a', password: 'a-password' }],
      vdcs: [
        {
          name: 'a-1',
          storageProfiles: [
            { name: 'fast', default: false },
            { name: 'slow', default: true },
          ],
        },
        { name: 'a-2', storageProfiles: [{ name: 'gold' }] },
      ],
    },
    { name: 'org-b', users: [{ name: 'b', password: 'b-password' }], vdcs: [{ name: 'b-1' }] },
  ],
});
const vdcs = [...world.vdcs.values()];
const profileIds = [...world.storageProfiles.keys()];

describe('storage profile of a new VM or disk', () => {
  it('each VDC defaults to the profile marked default', () => {
    const names = vdcs.map((v) => world.storageProfiles.get(world.defaultStorageProfileId(v))?.name);
    expect(names).toEqual(['slow', 'gold', '*']);
  });

  it("takes the VDC's own profile and refuses any other, saying whether it is the same org's", () => {
    const id = fc.oneof(fc.constantFrom(...profileIds), fc.uuid(), fc.constant(undefined));
    fc.assert(
      fc.property(fc.constantFrom(...vdcs), id, (vdc, wanted) => {
        const sp = wanted ? world.storageProfiles.get(wanted) : undefined;
        let refused: { sameOrg: StorageProfile | undefined } | undefined;
        const refuse = (sameOrg: StorageProfile | undefined) => {
          refused = { sameOrg };
          return new VcdError(400, 'BAD_REQUEST', 'refused');
        };
        if (sp?.vdcId === vdc.id) {
          expect(world.vdcStorageProfileId(vdc, wanted, refuse)).toBe(wanted);
          expect(refused).toBeUndefined();
          return;
        }
        expect(() => world.vdcStorageProfileId(vdc, wanted, refuse)).toThrow('refused');
        const sameOrg = sp !== undefined && world.vdcs.get(sp.vdcId)?.orgId === vdc.orgId;
        expect(refused).toEqual({ sameOrg: sameOrg ? sp : undefined });
      }),
    );
  });
});
